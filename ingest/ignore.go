package ingest

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreRule is one line of a gitignore-syntax file.
type ignoreRule struct {
	re      *regexp.Regexp // matched against the path relative to the file's directory
	negate  bool
	dirOnly bool
}

// ignoreFile holds the rules of the ignore files found in one directory.
type ignoreFile struct {
	dir   string // directory id relative to the walk root ("" for the root)
	rules []ignoreRule
}

// parseIgnore parses gitignore syntax (see gitignore(5)): blank lines and
// "#" comments are skipped, "\" escapes, trailing spaces are dropped unless
// escaped, "!" negates, a trailing "/" matches directories only, a pattern
// with a slash before its end is anchored to the file's directory, "*" and
// "?" and "[...]" do not match "/", and "**" matches across directories in
// the leading "**/", trailing "/**" and inner "/**/" forms.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = trimUnescapedSpaces(line)
		if line == "" {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		expr := globRegexp(line)
		if !anchored {
			expr = "(?:.*/)?" + expr
		}
		re, err := regexp.Compile("^" + expr + "$")
		if err != nil {
			continue // git ignores patterns it cannot parse, too
		}
		r.re = re
		rules = append(rules, r)
	}
	return rules
}

func trimUnescapedSpaces(s string) string {
	end := len(s)
	for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t') {
		if end >= 2 && s[end-2] == '\\' {
			break
		}
		end--
	}
	return s[:end]
}

// globRegexp converts one gitignore glob to a regular expression body.
func globRegexp(p string) string {
	var b strings.Builder
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "**" {
			switch {
			case last && i == 0:
				b.WriteString(".*")
			case last:
				b.WriteString(".*") // "a/**": everything inside a
			default:
				b.WriteString("(?:.*/)?") // "**/" zero or more directories
			}
			continue
		}
		b.WriteString(segmentRegexp(seg))
		if !last {
			b.WriteString("/")
		}
	}
	return b.String()
}

func segmentRegexp(seg string) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch c {
		case '\\':
			if i+1 < len(seg) {
				i++
				b.WriteString(regexp.QuoteMeta(string(seg[i])))
			}
		case '*':
			for i+1 < len(seg) && seg[i+1] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := i + 1
			if j < len(seg) && (seg[j] == '!' || seg[j] == '^') {
				j++
			}
			if j < len(seg) && seg[j] == ']' {
				j++
			}
			for j < len(seg) && seg[j] != ']' {
				j++
			}
			if j >= len(seg) {
				b.WriteString(`\[`)
				continue
			}
			class := seg[i+1 : j]
			neg := false
			if strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^") {
				neg, class = true, class[1:]
			}
			class = strings.ReplaceAll(class, `\`, `\\`)
			class = strings.ReplaceAll(class, `[`, `\[`)
			if neg {
				b.WriteString("[^/" + class + "]")
			} else {
				b.WriteString("[" + class + "]")
			}
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// ignoreStack is the set of ignore files in effect for one directory: those
// of the directory and its ancestors up to the walk root.
type ignoreStack []*ignoreFile

// ignored reports whether the path id (relative to the walk root) is
// ignored. As in git, the last matching rule decides, deeper files override
// shallower ones, and a negation cannot re-include a path whose parent
// directory is excluded (the walker never enters such a directory).
func (s ignoreStack) ignored(id string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		rel := id
		if f.dir != "" {
			var ok bool
			rel, ok = strings.CutPrefix(id, f.dir+"/")
			if !ok {
				continue
			}
		}
		for j := len(f.rules) - 1; j >= 0; j-- {
			r := f.rules[j]
			if r.dirOnly && !isDir {
				continue
			}
			if r.re.MatchString(rel) {
				return !r.negate
			}
		}
	}
	return false
}

func validGlob(p string) bool { return doublestar.ValidatePattern(p) }

// selected applies Include and Exclude to a file id.
func selected(id string, include, exclude []string) bool {
	for _, p := range exclude {
		if ok, _ := doublestar.Match(p, id); ok {
			return false
		}
	}
	if len(include) == 0 {
		return true
	}
	for _, p := range include {
		if ok, _ := doublestar.Match(p, id); ok {
			return true
		}
	}
	return false
}

// prunedDir reports whether an Exclude pattern excludes everything below a
// directory (like "vendor/**"), so the walker need not enter it.
func prunedDir(dirID string, exclude []string) bool {
	const probe = "\x00probe"
	for _, p := range exclude {
		a, _ := doublestar.Match(p, dirID+"/"+probe)
		b, _ := doublestar.Match(p, dirID+"/"+probe+"/"+probe+"."+probe)
		if a && b {
			return true
		}
	}
	return false
}
