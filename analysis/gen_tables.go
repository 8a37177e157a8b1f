//go:build ignore

// gen_tables generates tables.go: the per-rune character classes the
// StandardTokenizer grammar needs (UAX#29 Word_Break property values, Script
// Han/Hiragana/Hangul, Line_Break=Complex_Context, Extended_Pictographic).
//
// It reads the Unicode Character Database as Debian's unicode-data package
// installs it (apt-get install unicode-data):
//
//	go run gen_tables.go [-ucd /usr/share/unicode]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Classes; keep in sync with the constants in tokenizer.go.
const (
	cOther = iota
	cALetter
	cHangul
	cHebrew
	cNumeric
	cKatakana
	cExtendNumLet
	cMidLetter
	cMidNum
	cMidNumLet
	cSingleQuote
	cDoubleQuote
	cExtend
	cZWJ
	cRegional
	cHan
	cHiragana
	cComplex
	cPict
)

// extPict is Extended_Pictographic (emoji-data.txt, Unicode 15), which the
// Debian package does not ship.
var extPict = [][2]rune{
	{0x00A9, 0x00A9}, {0x00AE, 0x00AE}, {0x203C, 0x203C}, {0x2049, 0x2049},
	{0x2122, 0x2122}, {0x2139, 0x2139}, {0x2194, 0x2199}, {0x21A9, 0x21AA},
	{0x231A, 0x231B}, {0x2328, 0x2328}, {0x2388, 0x2388}, {0x23CF, 0x23CF},
	{0x23E9, 0x23F3}, {0x23F8, 0x23FA}, {0x24C2, 0x24C2}, {0x25AA, 0x25AB},
	{0x25B6, 0x25B6}, {0x25C0, 0x25C0}, {0x25FB, 0x25FE}, {0x2600, 0x2605},
	{0x2607, 0x2612}, {0x2614, 0x2685}, {0x2690, 0x2705}, {0x2708, 0x2712},
	{0x2714, 0x2714}, {0x2716, 0x2716}, {0x271D, 0x271D}, {0x2721, 0x2721},
	{0x2728, 0x2728}, {0x2733, 0x2734}, {0x2744, 0x2744}, {0x2747, 0x2747},
	{0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757},
	{0x2763, 0x2767}, {0x2795, 0x2797}, {0x27A1, 0x27A1}, {0x27B0, 0x27B0},
	{0x27BF, 0x27BF}, {0x2934, 0x2935}, {0x2B05, 0x2B07}, {0x2B1B, 0x2B1C},
	{0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x3030, 0x3030}, {0x303D, 0x303D},
	{0x3297, 0x3297}, {0x3299, 0x3299}, {0x1F000, 0x1F0FF}, {0x1F10D, 0x1F10F},
	{0x1F12F, 0x1F12F}, {0x1F16C, 0x1F171}, {0x1F17E, 0x1F17F}, {0x1F18E, 0x1F18E},
	{0x1F191, 0x1F19A}, {0x1F1AD, 0x1F1E5}, {0x1F201, 0x1F20F}, {0x1F21A, 0x1F21A},
	{0x1F22F, 0x1F22F}, {0x1F232, 0x1F23A}, {0x1F23C, 0x1F23F}, {0x1F249, 0x1F3FA},
	{0x1F400, 0x1F53D}, {0x1F546, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F774, 0x1F77F},
	{0x1F7D5, 0x1F7FF}, {0x1F80C, 0x1F80F}, {0x1F848, 0x1F84F}, {0x1F85A, 0x1F85F},
	{0x1F888, 0x1F88F}, {0x1F8AE, 0x1F8FF}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
	{0x1F947, 0x1FAFF}, {0x1FC00, 0x1FFFD},
}

const maxRune = 0x10FFFF

func main() {
	ucd := flag.String("ucd", "/usr/share/unicode", "Unicode Character Database directory")
	out := flag.String("o", "tables.go", "output file")
	flag.Parse()

	wb := make([]string, maxRune+1)
	parse(filepath.Join(*ucd, "auxiliary", "WordBreakProperty.txt"), func(lo, hi rune, v string) {
		for r := lo; r <= hi; r++ {
			wb[r] = v
		}
	})
	script := make([]string, maxRune+1)
	parse(filepath.Join(*ucd, "Scripts.txt"), func(lo, hi rune, v string) {
		for r := lo; r <= hi; r++ {
			script[r] = v
		}
	})
	lb := make([]string, maxRune+1)
	parse(filepath.Join(*ucd, "LineBreak.txt"), func(lo, hi rune, v string) {
		for r := lo; r <= hi; r++ {
			lb[r] = v
		}
	})
	pict := make([]bool, maxRune+1)
	for _, rg := range extPict {
		for r := rg[0]; r <= rg[1]; r++ {
			pict[r] = true
		}
	}

	class := make([]uint8, maxRune+1)
	for r := rune(0); r <= maxRune; r++ {
		c := cOther
		switch wb[r] {
		case "ALetter":
			c = cALetter
			if script[r] == "Hangul" {
				c = cHangul
			}
		case "Hebrew_Letter":
			c = cHebrew
		case "Numeric":
			c = cNumeric
		case "Katakana":
			c = cKatakana
		case "ExtendNumLet":
			c = cExtendNumLet
		case "MidLetter":
			c = cMidLetter
		case "MidNum":
			c = cMidNum
		case "MidNumLet":
			c = cMidNumLet
		case "Single_Quote":
			c = cSingleQuote
		case "Double_Quote":
			c = cDoubleQuote
		case "Extend", "Format":
			c = cExtend
		case "ZWJ":
			c = cZWJ
		case "Regional_Indicator":
			c = cRegional
		default:
			switch {
			case lb[r] == "SA":
				c = cComplex
			case script[r] == "Han":
				c = cHan
			case script[r] == "Hiragana":
				c = cHiragana
			case pict[r]:
				c = cPict
			}
		}
		// Lucene adds the fullwidth digits to Numeric.
		if r >= 0xFF10 && r <= 0xFF19 {
			c = cNumeric
		}
		class[r] = uint8(c)
	}

	// BMP: two-stage table of 64-rune blocks.
	var blocks [][64]uint8
	index := map[[64]uint8]int{}
	stage1 := make([]int, 0x10000/64)
	for b := 0; b < len(stage1); b++ {
		var blk [64]uint8
		copy(blk[:], class[b*64:b*64+64])
		i, ok := index[blk]
		if !ok {
			i = len(blocks)
			blocks = append(blocks, blk)
			index[blk] = i
		}
		stage1[b] = i
	}
	if len(blocks) > 255 {
		log.Fatalf("%d blocks do not fit a uint8 index", len(blocks))
	}
	// Supplementary planes: ranges of equal class, Other omitted.
	type rng struct {
		lo, hi rune
		c      uint8
	}
	var ranges []rng
	for r := rune(0x10000); r <= maxRune; r++ {
		c := class[r]
		if c == cOther {
			continue
		}
		if n := len(ranges); n > 0 && ranges[n-1].hi == r-1 && ranges[n-1].c == c {
			ranges[n-1].hi = r
			continue
		}
		ranges = append(ranges, rng{r, r, c})
	}

	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// Code generated by gen_tables.go from the Unicode %s Character Database; DO NOT EDIT.\n\n", version(filepath.Join(*ucd, "auxiliary", "WordBreakProperty.txt")))
	fmt.Fprintf(&buf, "package analysis\n\n")
	fmt.Fprintf(&buf, "// bmpIndex maps rune>>6 to a block of bmpBlocks.\nvar bmpIndex = [%d]uint8{", len(stage1))
	for i, v := range stage1 {
		if i%16 == 0 {
			buf.WriteString("\n")
		}
		fmt.Fprintf(&buf, "%d,", v)
	}
	fmt.Fprintf(&buf, "\n}\n\n// bmpBlocks holds the class of each rune of a 64-rune block.\nvar bmpBlocks = [%d][64]uint8{\n", len(blocks))
	for _, blk := range blocks {
		buf.WriteString("{")
		for _, v := range blk {
			fmt.Fprintf(&buf, "%d,", v)
		}
		buf.WriteString("},\n")
	}
	fmt.Fprintf(&buf, "}\n\n// suppRanges lists the classes of supplementary-plane runes that are not classOther.\nvar suppRanges = []classRange{\n")
	for _, r := range ranges {
		fmt.Fprintf(&buf, "{0x%X, 0x%X, %d},\n", r.lo, r.hi, r.c)
	}
	buf.WriteString("}\n")
	src, err := format.Source(buf.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d BMP blocks, %d supplementary ranges\n", len(blocks), len(ranges))
}

func version(path string) string {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	line = strings.TrimSpace(strings.TrimPrefix(line, "#"))
	line = strings.TrimSuffix(strings.TrimPrefix(line, "WordBreakProperty-"), ".txt")
	return line
}

// parse reads a UCD file of "XXXX[..YYYY] ; Value # comment" lines.
func parse(path string, fn func(lo, hi rune, v string)) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatalf("gen_tables: %v (install Debian's unicode-data package)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Split(line, ";")
		if len(fields) < 2 {
			continue
		}
		cp := strings.TrimSpace(fields[0])
		v := strings.TrimSpace(fields[1])
		lo, hi := cp, cp
		if i := strings.Index(cp, ".."); i >= 0 {
			lo, hi = cp[:i], cp[i+2:]
		}
		l, err1 := strconv.ParseUint(lo, 16, 32)
		h, err2 := strconv.ParseUint(hi, 16, 32)
		if err1 != nil || err2 != nil {
			log.Fatalf("gen_tables: %s: bad code point range %q", path, cp)
		}
		fn(rune(l), rune(h), v)
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
}
