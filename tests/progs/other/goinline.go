// goinline [N]: Go's inlined frames, for the go_inline test: walk() spends
// its time in (*Point).Dist, which the compiler inlines into it.  Go's
// DWARF has no .debug_aranges, and addr2line names an inlined Go function
// after the ELF symbol at its address the first time it meets it.
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
)

type Point struct{ X, Y float64 }

func (p *Point) Dist(q *Point) float64 {
	dx, dy := p.X-q.X, p.Y-q.Y
	return math.Sqrt(dx*dx + dy*dy)
}

//go:noinline
func walk(pts []Point) float64 {
	s := 0.0
	for i := range pts {
		for j := range pts {
			s += pts[i].Dist(&pts[j])
		}
	}
	return s
}

func main() {
	n := 1500
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = Point{float64(i % 37), float64(i % 91)}
	}
	fmt.Println(walk(pts))
}
