package site

import (
	"encoding/json"
	"fmt"
	"github.com/aistatus/aistatus/history"
	"html"
	"math"
	"strings"
)

// badge is one badge in the shields.io "flat" style: a grey label on the
// left, a coloured message on the right.
type badge struct {
	Label, Message string
	// Color is the shields.io colour name (for the endpoint JSON) and Hex
	// its value (for our own SVG).
	Color, Hex string
}

func statusBadge(svc *service) badge {
	return badge{Label: svc.Name, Message: svc.State.Word, Color: svc.State.BadgeColor, Hex: svc.State.BadgeHex}
}

func uptimeBadge(svc *service) badge {
	month := svc.Month()
	b := badge{Label: svc.Name + " 30d uptime", Message: month.Text()}
	switch p := month.Value; {
	case p == nil || month.Coverage < history.MinCoverage:
		b.Color, b.Hex = "lightgrey", "#9f9f9f"
	case *p >= 99.9:
		b.Color, b.Hex = "brightgreen", "#4c1"
	case *p >= 99:
		b.Color, b.Hex = "green", "#97ca00"
	case *p >= 95:
		b.Color, b.Hex = "yellow", "#dfb317"
	case *p >= 90:
		b.Color, b.Hex = "orange", "#fe7d37"
	default:
		b.Color, b.Hex = "red", "#e05d44"
	}
	return b
}

// Month is the service's 30-day uptime figure.
func (svc *service) Month() uptimeFigure { return svc.Figures[len(svc.Figures)-1] }

// endpointCacheSeconds is the cacheSeconds of the shields.io endpoint JSON:
// the snapshot changes every minute. (shields.io applies its own minimum.)
const endpointCacheSeconds = 60

// endpointJSON is the badge as a shields.io endpoint document, for
// https://img.shields.io/endpoint?url=….
func (b badge) endpointJSON() ([]byte, error) {
	data, err := json.Marshal(struct {
		SchemaVersion int    `json:"schemaVersion"`
		Label         string `json:"label"`
		Message       string `json:"message"`
		Color         string `json:"color"`
		CacheSeconds  int    `json:"cacheSeconds"`
	}{1, b.Label, b.Message, b.Color, endpointCacheSeconds})
	if err != nil {
		return nil, fmt.Errorf("badge %q: %w", b.Label, err)
	}
	return append(data, '\n'), nil
}

// Badge geometry of the flat style, in pixels.
const (
	badgeHeight  = 20
	badgePadding = 5 // on each side of each text
)

// widths returns the label, message and total widths.
func (b badge) widths() (label, message, total int) {
	label = int(math.Ceil(textWidth(b.Label))) + 2*badgePadding
	message = int(math.Ceil(textWidth(b.Message))) + 2*badgePadding
	return label, message, label + message
}

// svg draws the badge. Texts are drawn at 10× scale (font-size 110 with
// scale(.1)) as shields.io does, so that their positions keep a tenth of a
// pixel of precision; each text is drawn twice, a dark copy one pixel lower
// as its shadow. textLength makes a viewer that lacks Verdana stretch or
// squeeze its fallback font to the estimated width.
func (b badge) svg() []byte {
	lw, mw, w := b.widths()
	label, message := html.EscapeString(b.Label), html.EscapeString(b.Message)
	title := label + ": " + message
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">`, w, badgeHeight, title)
	fmt.Fprintf(&s, `<title>%s</title>`, title)
	s.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&s, `<clipPath id="r"><rect width="%d" height="%d" rx="3" fill="#fff"/></clipPath>`, w, badgeHeight)
	fmt.Fprintf(&s, `<g clip-path="url(#r)"><rect width="%d" height="%d" fill="#555"/><rect x="%d" width="%d" height="%d" fill="%s"/><rect width="%d" height="%d" fill="url(#s)"/></g>`,
		lw, badgeHeight, lw, mw, badgeHeight, b.Hex, w, badgeHeight)
	s.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">`)
	for _, t := range []struct {
		text   string
		center int // in tenths of a pixel
		width  int
	}{{label, lw * 5, lw - 2*badgePadding}, {message, lw*10 + mw*5, mw - 2*badgePadding}} {
		fmt.Fprintf(&s, `<text aria-hidden="true" x="%d" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="%d">%s</text>`, t.center, t.width*10, t.text)
		fmt.Fprintf(&s, `<text x="%d" y="140" transform="scale(.1)" fill="#fff" textLength="%d">%s</text>`, t.center, t.width*10, t.text)
	}
	s.WriteString(`</g></svg>`)
	s.WriteByte('\n')
	return []byte(s.String())
}

// verdana11 are the advance widths, in pixels, of the printable ASCII
// characters (space to tilde) in Verdana at 11px, the badge font. They are
// an estimate: the reader's renderer has the final word, and textLength
// keeps the text inside its box either way.
var verdana11 = [95]float64{
	3.9, 4.3, 5, 9, 7, 12, 8, 3, 5, 5, 7, 9, 4, 5, 4, 5, // space ! " # $ % & ' ( ) * + , - . /
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, // 0-9
	5, 5, 9, 9, 9, 6, 11, // : ; < = > ? @
	7.5, 7.5, 7.7, 8.5, 7, 6.3, 8.5, 8.3, 4.6, 5, 7.6, 6.1, 9.3, // A-M
	8.2, 8.7, 6.6, 8.7, 7.6, 7.5, 6.8, 8.1, 7.5, 11, 7.5, 6.8, 7.5, // N-Z
	5, 5, 5, 9, 7, 7, // [ \ ] ^ _ `
	6.6, 6.9, 5.7, 6.9, 6.6, 3.9, 6.9, 7, 3, 3.8, 6.5, 3, 11, // a-m
	7, 6.7, 6.9, 6.9, 4.7, 5.7, 4.3, 7, 6.5, 9, 6.5, 6.5, 5.8, // n-z
	7, 5, 7, 9, // { | } ~
}

// wideWidth is the width assumed for a character outside the table, the
// width of "@": a wide guess, so that text does not overflow its box.
const wideWidth = 11

// textWidth estimates the width of s in Verdana 11px.
func textWidth(s string) float64 {
	var w float64
	for _, r := range s {
		if r >= ' ' && r <= '~' {
			w += verdana11[r-' ']
		} else {
			w += wideWidth
		}
	}
	return w
}
