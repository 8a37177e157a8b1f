package ingest

import (
	"regexp"
	"strings"
)

// manName matches the file names of manual pages: a section digit (or n)
// with an optional suffix: ls.1, perlfunc.3perl, openssl.1ssl, tclsh.n.
var manName = regexp.MustCompile(`\.[1-9n][a-z]{0,8}$`)

// isManPage reports whether a text file named base is a manual page in roff
// (man(7) or mdoc(7)): its name ends in a section and its first request
// (after comments) is .TH or .Dd.
func isManPage(base, text string) bool {
	if !manName.MatchString(strings.ToLower(base)) {
		return false
	}
	inMacro := false
	for n, line := range strings.SplitN(text, "\n", 400) {
		if n == 399 {
			break // pod2man's preamble of macro definitions is ~100 lines
		}
		l := strings.TrimSpace(line)
		if inMacro {
			inMacro = l != ".."
			continue
		}
		switch {
		case strings.HasPrefix(l, ".de ") || strings.HasPrefix(l, ".am "):
			inMacro = true
			continue
		case l == "", l == ".", strings.HasPrefix(l, `\{`), strings.HasPrefix(l, `\}`), strings.HasPrefix(l, `.\"`), strings.HasPrefix(l, `'\"`), strings.HasPrefix(l, `.\\"`):
			continue
		case strings.HasPrefix(l, ".TH "), strings.HasPrefix(l, ".Dd"):
			return true
		case strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'"):
			continue // .de, .ds, .nr, .so ... before the title
		}
		return false
	}
	return false
}

// roffEscapes are the roff escapes a manual page's text uses, as text.
var roffEscapes = strings.NewReplacer(
	`\fB`, "", `\fI`, "", `\fR`, "", `\fP`, "", `\f(CW`, "", `\f(CR`, "", `\f(CB`, "", `\f(CI`, "", `\fC`, "", `\f1`, "", `\f2`, "", `\f3`, "", `\f4`, "",
	`\,`, "", `\/`, "", `\&`, "", `\%`, "", `\:`, "", `\|`, "", `\^`, "", `\c`, "",
	`\-`, "-", `\e`, `\`, `\~`, " ", `\ `, " ", `\0`, " ", `\t`, "\t",
	`\(em`, "—", `\(en`, "–", `\(bu`, "•", `\(aq`, "'", `\(dq`, `"`, `\(co`, "©", `\(rg`, "®", `\(tm`, "™",
	`\(lq`, "“", `\(rq`, "”", `\(oq`, "‘", `\(cq`, "’", `\(hy`, "-", `\(mi`, "-", `\(pl`, "+", `\(mu`, "×",
	`\(<=`, "≤", `\(>=`, "≥", `\(->`, "→", `\(<-`, "←", `\(de`, "°", `\(ga`, "`", `\(ti`, "~", `\(ha`, "^",
	`\*(lq`, "“", `\*(rq`, "”", `\*R`, "®", `\*(Tm`, "™", `\(sq`, "□",
)

// leftoverEscape matches escapes roffEscapes does not know: \(xx, \[name],
// \*x, \*(xx, \f(xx, \fx, \s±n, \nx, \n(xx.
var leftoverEscape = regexp.MustCompile(`\\(\([^ ]{2}|\[[^\]]*\]|\*\(..|\*\[[^\]]*\]|\*.|f\(..|f\[[^\]]*\]|f.|s[+-]?\d+|n\(..|n.)`)

func roffText(s string) string {
	return leftoverEscape.ReplaceAllString(roffEscapes.Replace(s), "")
}

// roffArgs splits a request's arguments, honouring double quotes.
func roffArgs(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				out = append(out, s[1:])
				break
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// manToMarkdown turns a roff manual page into the Markdown its reader sees:
// the title from .TH ("LS(1)"), .SH and .SS (.Sh, .Ss) as headings,
// paragraphs at .PP/.TP/.IP, font requests (.B, .BR, ...) as their text,
// escapes as the characters they print; comments and other requests are
// dropped. Manual pages then chunk by their sections and are searched by
// their words, not by "\fB" and ".TP".
func manToMarkdown(text string) (md, title string) {
	var b strings.Builder
	para := func() {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n\n") {
			b.WriteString("\n")
		}
	}
	inMacro := false
	for _, line := range strings.Split(text, "\n") {
		if inMacro {
			inMacro = strings.TrimSpace(line) != ".."
			continue
		}
		if strings.HasPrefix(line, ".de ") || strings.HasPrefix(line, ".de\t") || strings.HasPrefix(line, ".am ") {
			inMacro = true // a macro definition, up to ".."
			continue
		}
		if strings.HasPrefix(line, `.\"`) || strings.HasPrefix(line, `'\"`) || strings.HasPrefix(line, `.\\"`) ||
			strings.HasPrefix(line, `\{`) || strings.HasPrefix(line, `\}`) {
			continue // comments, the braces of a conditional's body
		}
		if !strings.HasPrefix(line, ".") && !strings.HasPrefix(line, "'") {
			b.WriteString(roffText(line))
			b.WriteString("\n")
			continue
		}
		req, rest, _ := strings.Cut(strings.TrimSpace(line[1:]), " ")
		args := roffArgs(rest)
		switch req {
		case "TH", "Dt":
			if len(args) > 0 {
				title = roffText(args[0])
				if len(args) > 1 {
					title += "(" + roffText(args[1]) + ")"
				}
				para()
				b.WriteString("# " + title + "\n\n")
			}
		case "SH", "Sh":
			para()
			b.WriteString("## " + roffText(strings.Join(args, " ")) + "\n\n")
		case "SS", "Ss":
			para()
			b.WriteString("### " + roffText(strings.Join(args, " ")) + "\n\n")
		case "PP", "LP", "P", "Pp", "sp", "TP", "HP", "br":
			para()
		case "IP":
			para()
			if len(args) > 0 && roffText(args[0]) != "" {
				b.WriteString(roffText(args[0]) + " ")
			}
		case "B", "I", "SM", "SB", "Nm", "Ar", "Fl", "Cm", "Pa", "Nd", "Xr", "Em", "Sy", "Li", "Dv", "Ev", "Fn", "Ft", "Va":
			b.WriteString(roffText(strings.Join(args, " ")) + "\n")
		case "BR", "BI", "IR", "IB", "RB", "RI":
			// Alternating fonts: the arguments run together.
			b.WriteString(roffText(strings.Join(args, "")) + "\n")
		}
	}
	return strings.TrimSpace(b.String()) + "\n", title
}
