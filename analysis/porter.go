package analysis

// Porter stemmer: Martin Porter's original algorithm (1980) as Lucene's
// PorterStemmer implements it, including the departures of Porter's own
// reference implementation that Lucene keeps: "bli" -> "ble" instead of
// "abli" -> "able", "logi" -> "log" in step 2, and no stemming of words of
// one or two letters. It is not Porter2 (Snowball English).

type char interface{ ~byte | ~rune }

type porter[T char] struct {
	b        []T
	k, k0, j int
}

// PorterStem returns the Porter stem of a lowercase word.
func PorterStem(word string) string {
	ascii := true
	for i := 0; i < len(word); i++ {
		if word[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(porterStem([]byte(word)))
	}
	return string(porterStem([]rune(word)))
}

// porterStem stems b in place and returns the stem, a prefix of b.
func porterStem[T char](b []T) []T {
	if len(b) <= 2 {
		return b
	}
	z := porter[T]{b: b, k: len(b) - 1}
	z.step1()
	z.step2()
	z.step3()
	z.step4()
	z.step5()
	z.step6()
	return b[:z.k+1]
}

// cons reports whether b[i] is a consonant.
func (z *porter[T]) cons(i int) bool {
	switch z.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		if i == z.k0 {
			return true
		}
		return !z.cons(i - 1)
	}
	return true
}

// m measures the number of consonant sequences between k0 and j:
// <c><v> gives 0, <c>vc<v> gives 1, <c>vcvc<v> gives 2...
func (z *porter[T]) m() int {
	n := 0
	i := z.k0
	for {
		if i > z.j {
			return n
		}
		if !z.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > z.j {
				return n
			}
			if z.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > z.j {
				return n
			}
			if !z.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

// vowelinstem reports whether k0..j contains a vowel.
func (z *porter[T]) vowelinstem() bool {
	for i := z.k0; i <= z.j; i++ {
		if !z.cons(i) {
			return true
		}
	}
	return false
}

// doublec reports whether j-1, j is a double consonant.
func (z *porter[T]) doublec(j int) bool {
	if j < z.k0+1 {
		return false
	}
	if z.b[j] != z.b[j-1] {
		return false
	}
	return z.cons(j)
}

// cvc reports whether i-2, i-1, i is consonant-vowel-consonant and the second
// consonant is not w, x or y.
func (z *porter[T]) cvc(i int) bool {
	if i < z.k0+2 || !z.cons(i) || z.cons(i-1) || !z.cons(i-2) {
		return false
	}
	switch z.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

func (z *porter[T]) ends(s string) bool {
	l := len(s)
	o := z.k - l + 1
	if o < z.k0 {
		return false
	}
	for i := 0; i < l; i++ {
		if z.b[o+i] != T(s[i]) {
			return false
		}
	}
	z.j = z.k - l
	return true
}

// setto sets j+1..k to s, readjusting k.
func (z *porter[T]) setto(s string) {
	l := len(s)
	o := z.j + 1
	for i := 0; i < l; i++ {
		z.b[o+i] = T(s[i])
	}
	z.k = z.j + l
}

func (z *porter[T]) r(s string) {
	if z.m() > 0 {
		z.setto(s)
	}
}

// step1 removes plurals and -ed or -ing.
func (z *porter[T]) step1() {
	if z.b[z.k] == 's' {
		if z.ends("sses") {
			z.k -= 2
		} else if z.ends("ies") {
			z.setto("i")
		} else if z.b[z.k-1] != 's' {
			z.k--
		}
	}
	if z.ends("eed") {
		if z.m() > 0 {
			z.k--
		}
	} else if (z.ends("ed") || z.ends("ing")) && z.vowelinstem() {
		z.k = z.j
		if z.ends("at") {
			z.setto("ate")
		} else if z.ends("bl") {
			z.setto("ble")
		} else if z.ends("iz") {
			z.setto("ize")
		} else if z.doublec(z.k) {
			ch := z.b[z.k]
			z.k--
			if ch == 'l' || ch == 's' || ch == 'z' {
				z.k++
			}
		} else if z.m() == 1 && z.cvc(z.k) {
			z.setto("e")
		}
	}
}

// step2 turns terminal y to i when there is another vowel in the stem.
func (z *porter[T]) step2() {
	if z.ends("y") && z.vowelinstem() {
		z.b[z.k] = 'i'
	}
}

// step3 maps double suffixes to single ones.
func (z *porter[T]) step3() {
	if z.k == z.k0 {
		return
	}
	switch z.b[z.k-1] {
	case 'a':
		if z.ends("ational") {
			z.r("ate")
		} else if z.ends("tional") {
			z.r("tion")
		}
	case 'c':
		if z.ends("enci") {
			z.r("ence")
		} else if z.ends("anci") {
			z.r("ance")
		}
	case 'e':
		if z.ends("izer") {
			z.r("ize")
		}
	case 'l':
		if z.ends("bli") {
			z.r("ble")
		} else if z.ends("alli") {
			z.r("al")
		} else if z.ends("entli") {
			z.r("ent")
		} else if z.ends("eli") {
			z.r("e")
		} else if z.ends("ousli") {
			z.r("ous")
		}
	case 'o':
		if z.ends("ization") {
			z.r("ize")
		} else if z.ends("ation") {
			z.r("ate")
		} else if z.ends("ator") {
			z.r("ate")
		}
	case 's':
		if z.ends("alism") {
			z.r("al")
		} else if z.ends("iveness") {
			z.r("ive")
		} else if z.ends("fulness") {
			z.r("ful")
		} else if z.ends("ousness") {
			z.r("ous")
		}
	case 't':
		if z.ends("aliti") {
			z.r("al")
		} else if z.ends("iviti") {
			z.r("ive")
		} else if z.ends("biliti") {
			z.r("ble")
		}
	case 'g':
		if z.ends("logi") {
			z.r("log")
		}
	}
}

// step4 deals with -ic-, -full, -ness etc.
func (z *porter[T]) step4() {
	switch z.b[z.k] {
	case 'e':
		if z.ends("icate") {
			z.r("ic")
		} else if z.ends("ative") {
			z.r("")
		} else if z.ends("alize") {
			z.r("al")
		}
	case 'i':
		if z.ends("iciti") {
			z.r("ic")
		}
	case 'l':
		if z.ends("ical") {
			z.r("ic")
		} else if z.ends("ful") {
			z.r("")
		}
	case 's':
		if z.ends("ness") {
			z.r("")
		}
	}
}

// step5 takes off -ant, -ence etc. in context <c>vcvc<v>.
func (z *porter[T]) step5() {
	if z.k == z.k0 {
		return
	}
	switch z.b[z.k-1] {
	case 'a':
		if !z.ends("al") {
			return
		}
	case 'c':
		if !z.ends("ance") && !z.ends("ence") {
			return
		}
	case 'e':
		if !z.ends("er") {
			return
		}
	case 'i':
		if !z.ends("ic") {
			return
		}
	case 'l':
		if !z.ends("able") && !z.ends("ible") {
			return
		}
	case 'n':
		if !z.ends("ant") && !z.ends("ement") && !z.ends("ment") && !z.ends("ent") {
			return
		}
	case 'o':
		if z.ends("ion") && z.j >= 0 && (z.b[z.j] == 's' || z.b[z.j] == 't') {
			break
		}
		if !z.ends("ou") {
			return
		}
	case 's':
		if !z.ends("ism") {
			return
		}
	case 't':
		if !z.ends("ate") && !z.ends("iti") {
			return
		}
	case 'u':
		if !z.ends("ous") {
			return
		}
	case 'v':
		if !z.ends("ive") {
			return
		}
	case 'z':
		if !z.ends("ize") {
			return
		}
	default:
		return
	}
	if z.m() > 1 {
		z.k = z.j
	}
}

// step6 removes a final -e if m() > 1 and changes -ll to -l if m() > 1.
func (z *porter[T]) step6() {
	z.j = z.k
	if z.b[z.k] == 'e' {
		a := z.m()
		if a > 1 || a == 1 && !z.cvc(z.k-1) {
			z.k--
		}
	}
	if z.b[z.k] == 'l' && z.doublec(z.k) && z.m() > 1 {
		z.k--
	}
}
