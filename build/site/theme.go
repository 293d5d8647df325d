package site

import (
	htmltemplate "html/template"
	"strings"
)

// palette is one colour theme of the pages. The colours live here rather
// than in the style sheet so that a test can check every text colour
// against every background it is drawn on (WCAG AA, 4.5:1).
type palette struct {
	// Backgrounds: the page and the cards drawn on it.
	Bg, Surface string
	// Border is decorative; NoData is the bar of a day without data.
	Border, NoData string
	// Text colours.
	Fg, Muted, Link string
	// Status colours, used for status text, icons and chart bars.
	Operational, Degraded, Partial, Major, Maintenance, Unknown string
}

var (
	lightTheme = palette{
		Bg: "#ffffff", Surface: "#f6f8fa", Border: "#d0d7de", NoData: "#818b98",
		Fg: "#1f2328", Muted: "#59636e", Link: "#0550ae",
		Operational: "#1a7f37", Degraded: "#7a6a00", Partial: "#c24700",
		Major: "#9f0b24", Maintenance: "#6639ba", Unknown: "#59636e",
	}
	darkTheme = palette{
		Bg: "#0d1117", Surface: "#161b22", Border: "#3d444d", NoData: "#656c76",
		Fg: "#e6edf3", Muted: "#9198a1", Link: "#4493f8",
		Operational: "#3fb950", Degraded: "#e8d21d", Partial: "#ffa657",
		Major: "#ff4d4d", Maintenance: "#ab7df8", Unknown: "#9198a1",
	}
)

// texts are the text colours of a palette by name, each of which is drawn
// on both Bg and Surface.
func (p palette) texts() map[string]string {
	return map[string]string{
		"fg": p.Fg, "muted": p.Muted, "link": p.Link,
		"operational": p.Operational, "degraded": p.Degraded, "partial": p.Partial,
		"major": p.Major, "maintenance": p.Maintenance, "unknown": p.Unknown,
	}
}

// vars renders the palette as CSS custom properties.
func (p palette) vars() string {
	var b strings.Builder
	for _, v := range [][2]string{
		{"bg", p.Bg}, {"surface", p.Surface}, {"border", p.Border}, {"nodata", p.NoData},
		{"fg", p.Fg}, {"muted", p.Muted}, {"link", p.Link},
		{"operational", p.Operational}, {"degraded", p.Degraded}, {"partial", p.Partial},
		{"major", p.Major}, {"maintenance", p.Maintenance}, {"unknown", p.Unknown},
	} {
		b.WriteString("--" + v[0] + ":" + v[1] + ";")
	}
	return b.String()
}

// themeCSS declares both palettes: light by default, dark when the reader's
// system prefers it.
func themeCSS() htmltemplate.CSS {
	// The values are this package's constants, never input: safe as CSS.
	return htmltemplate.CSS(":root{color-scheme:light dark;" + lightTheme.vars() + "}\n" +
		"@media (prefers-color-scheme:dark){:root{" + darkTheme.vars() + "}}")
}
