package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// The HTML report's charts are drawn here as inline SVG: the file needs no
// script, no chart library and no network to render, in any browser or
// offline viewer.

type xy struct{ x, y float64 }

type series struct {
	name  string
	color string
	dash  bool
	pts   []xy
}

// chart is a line chart (or a bar chart when bars is set).
type chart struct {
	title  string
	xLabel string
	logX   bool
	logY   bool
	series []series
	bars   []bar
	// xFmt and yFmt label the axes' ticks.
	xFmt, yFmt func(float64) string
	// xTicks, if set, replaces the automatic ticks (value, label).
	xTicks []tick
	// shade marks [0, shade) on the x axis (the warm-up).
	shade      float64
	shadeLabel string
}

type bar struct {
	x0, x1 float64 // in x units
	y      float64
	label  string
}

type tick struct {
	v     float64
	label string
}

// The charts' size and margins, in SVG units (the page scales them).
const (
	chartW, chartH         = 880, 260
	padL, padR, padT, padB = 64, 16, 28, 40
)

func (c *chart) svg() template.HTML {
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.series {
		for _, p := range s.pts {
			if c.logY && p.y <= 0 {
				continue
			}
			xmin, xmax = math.Min(xmin, p.x), math.Max(xmax, p.x)
			ymin, ymax = math.Min(ymin, p.y), math.Max(ymax, p.y)
		}
	}
	for _, b := range c.bars {
		xmin, xmax = math.Min(xmin, b.x0), math.Max(xmax, b.x1)
		ymin, ymax = 0, math.Max(ymax, b.y)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, chartW, chartH, chartW, chartH, html.EscapeString(c.title))
	fmt.Fprintf(&sb, `<text x="%d" y="18" class="ct">%s</text>`, padL, html.EscapeString(c.title))
	if math.IsInf(xmin, 0) || math.IsInf(ymin, 0) {
		fmt.Fprintf(&sb, `<text x="%d" y="%d" class="lbl">no data</text></svg>`, chartW/2-20, chartH/2)
		return template.HTML(sb.String())
	}
	if !c.logX && len(c.bars) == 0 {
		xmin = math.Min(xmin, 0)
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	// Y range.
	if c.logY {
		ymin = math.Pow(10, math.Floor(math.Log10(ymin)))
		ymax = math.Pow(10, math.Ceil(math.Log10(ymax*1.0001)))
		if ymax <= ymin {
			ymax = ymin * 10
		}
	} else {
		ymin = 0
		ymax = niceCeil(ymax * 1.05)
		if ymax == 0 {
			ymax = 1
		}
	}
	pw, ph := float64(chartW-padL-padR), float64(chartH-padT-padB)
	fx := func(x float64) float64 {
		if c.logX {
			return padL + (math.Log10(x)-math.Log10(xmin))/(math.Log10(xmax)-math.Log10(xmin))*pw
		}
		return padL + (x-xmin)/(xmax-xmin)*pw
	}
	fy := func(y float64) float64 {
		if c.logY {
			y = math.Max(y, ymin)
			return padT + ph - (math.Log10(y)-math.Log10(ymin))/(math.Log10(ymax)-math.Log10(ymin))*ph
		}
		return padT + ph - (y-ymin)/(ymax-ymin)*ph
	}
	// Warm-up shade.
	if c.shade > xmin {
		fmt.Fprintf(&sb, `<rect x="%.1f" y="%d" width="%.1f" height="%.1f" class="shade"/>`, fx(xmin), padT, fx(math.Min(c.shade, xmax))-fx(xmin), ph)
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" class="lbl">%s</text>`, fx(xmin)+4, padT+12, html.EscapeString(c.shadeLabel))
	}
	// Grid and y ticks.
	for _, t := range yTicks(ymin, ymax, c.logY) {
		y := fy(t)
		fmt.Fprintf(&sb, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, padL, chartW-padR, y, y)
		fmt.Fprintf(&sb, `<text x="%d" y="%.1f" class="lbl" text-anchor="end">%s</text>`, padL-6, y+4, html.EscapeString(c.yFmt(t)))
	}
	// X ticks.
	xt := c.xTicks
	if xt == nil {
		for _, v := range linTicks(xmin, xmax, 8) {
			xt = append(xt, tick{v, c.xFmt(v)})
		}
	}
	for _, t := range xt {
		if t.v < xmin || t.v > xmax {
			continue
		}
		x := fx(t.v)
		fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" class="tick"/>`, x, x, padT, padT+ph)
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" class="lbl" text-anchor="middle">%s</text>`, x, padT+ph+16, html.EscapeString(t.label))
	}
	if c.xLabel != "" {
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" class="lbl" text-anchor="middle">%s</text>`, padL+pw/2, chartH-4, html.EscapeString(c.xLabel))
	}
	fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%.1f" height="%.1f" class="frame"/>`, padL, padT, pw, ph)
	// Bars.
	for _, b := range c.bars {
		x0, x1 := fx(b.x0), fx(b.x1)
		y := fy(b.y)
		fmt.Fprintf(&sb, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="bar"><title>%s</title></rect>`,
			x0+0.5, y, math.Max(x1-x0-1, 1), padT+ph-y, html.EscapeString(b.label))
	}
	// Lines, with hover titles on the points when there are few enough.
	for _, s := range c.series {
		var pts []string
		for _, p := range s.pts {
			if c.logY && p.y <= 0 {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", fx(p.x), fy(p.y)))
		}
		if len(pts) == 0 {
			continue
		}
		dash := ""
		if s.dash {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&sb, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.8"%s/>`, strings.Join(pts, " "), s.color, dash)
		if len(s.pts) <= 300 {
			for _, p := range s.pts {
				if c.logY && p.y <= 0 {
					continue
				}
				fmt.Fprintf(&sb, `<circle cx="%.1f" cy="%.1f" r="2.2" fill="%s"><title>%s at %s: %s</title></circle>`,
					fx(p.x), fy(p.y), s.color, html.EscapeString(s.name), html.EscapeString(c.xFmt(p.x)), html.EscapeString(c.yFmt(p.y)))
			}
		}
	}
	// Legend.
	lx := float64(chartW - padR - 8)
	for i := len(c.series) - 1; i >= 0; i-- {
		s := c.series[i]
		wdt := float64(len(s.name))*6.5 + 26
		lx -= wdt
		dash := ""
		if s.dash {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="14" y2="14" stroke="%s" stroke-width="2.5"%s/><text x="%.1f" y="18" class="lbl">%s</text>`,
			lx, lx+16, s.color, dash, lx+20, html.EscapeString(s.name))
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String())
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

// linTicks returns about n round ticks covering [lo, hi].
func linTicks(lo, hi float64, n int) []float64 {
	step := niceCeil((hi - lo) / float64(n))
	if step <= 0 {
		return []float64{lo}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

func yTicks(lo, hi float64, logScale bool) []float64 {
	if !logScale {
		return linTicks(lo, hi, 5)
	}
	var out []float64
	decades := math.Log10(hi) - math.Log10(lo)
	for d := lo; d <= hi*1.0001; d *= 10 {
		out = append(out, d)
		if decades <= 3 && d*10 <= hi*1.0001 {
			out = append(out, d*2, d*5)
		}
	}
	return out
}
