package analysis

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
)

// The German, Spanish and Russian analyzers: StandardTokenizer -> lowercase
// -> language normalization -> stop words (normalized the same way) ->
// Snowball stemmer. Normalization comes before stemming so that a query typed
// without umlauts or accents ("Hauser", "informacion") meets the same terms
// as the correctly written document ("Häuser", "información").

// StemCacheSize bounds the words each Snowball analyzer remembers the stem
// of. Word frequencies are Zipfian, so a bounded cache that stops growing
// when full still serves most lookups; it spares the Snowball runtime's
// allocations.
const StemCacheSize = 1 << 16

// stemCache memoizes a stemmer; it is safe for concurrent use.
type stemCache struct {
	mu   sync.RWMutex
	m    map[string]string
	stem func(string) string
}

func (c *stemCache) get(t []byte) []byte {
	c.mu.RLock()
	s, ok := c.m[string(t)]
	c.mu.RUnlock()
	if !ok {
		s = c.stem(string(t))
		c.mu.Lock()
		if len(c.m) < StemCacheSize {
			c.m[string(t)] = s
		}
		c.mu.Unlock()
	}
	return append(t[:0], s...)
}

// snowballStem runs a Snowball stemmer on t, through a stemCache.
func snowballStem(stem func(*snowball.Env) bool) func(t []byte) []byte {
	c := &stemCache{m: map[string]string{}, stem: func(w string) string {
		env := snowball.NewEnv(w)
		stem(env)
		return env.Current()
	}}
	return c.get
}

// germanNormalize folds German spelling variants as Lucene's
// GermanNormalizationFilter does: ä, ö, ü -> a, o, u; ß -> ss; "ae", "oe" ->
// a, o; "ue" -> u except after a vowel or q (so "Mauer", "Quelle" keep it).
// It also maps the capital ẞ (already lowercased to ß).
func germanNormalize(t []byte) []byte {
	if isASCII(t) && !bytes.Contains(t, []byte("ae")) && !bytes.Contains(t, []byte("oe")) && !bytes.Contains(t, []byte("ue")) {
		return t
	}
	out := t[:0] // in place: the output never outruns the input (ß -> ss is 2 bytes for 2)
	// Lucene's state machine.
	const (
		stN = iota // ordinary
		stV        // stops a following 'u' from entering stU
		stU        // after a, o or u (not preceded by a vowel or q): an 'e' is dropped
	)
	state := stN
	var prev rune
	for i := 0; i < len(t); {
		r, sz := utf8.DecodeRune(t[i:])
		i += sz
		switch r {
		case 'a', 'o':
			state = stU
		case 'u':
			if state == stN {
				state = stU
			} else {
				state = stV
			}
		case 'e':
			if state == stU && (prev == 'a' || prev == 'o' || prev == 'u') {
				state = stV
				prev = r
				continue // drop the 'e' of ae/oe/ue
			}
			state = stV
		case 'i', 'q', 'y':
			state = stV
		case 'ä':
			r, state = 'a', stV
		case 'ö':
			r, state = 'o', stV
		case 'ü':
			r, state = 'u', stV
		case 'ß':
			out = append(out, 's', 's')
			state, prev = stN, 's'
			continue
		default:
			state = stN
		}
		prev = r
		out = utf8.AppendRune(out, r)
	}
	return out
}

// spanishNormalize removes the acute accents and the diaeresis (á é í ó ú ü
// -> a e i o u); ñ stays, it is a letter of its own ("año" is not "ano").
// The stemmer's -ción and -logía suffixes are then restored so that
// "informacion" and "información" stem alike.
func spanishNormalize(t []byte) []byte {
	if !isASCII(t) {
		out := t[:0] // folding only shrinks (2-byte letters -> 1 byte)
		for i := 0; i < len(t); {
			r, sz := utf8.DecodeRune(t[i:])
			i += sz
			switch r {
			case 'á':
				r = 'a'
			case 'é':
				r = 'e'
			case 'í':
				r = 'i'
			case 'ó':
				r = 'o'
			case 'ú', 'ü':
				r = 'u'
			}
			out = utf8.AppendRune(out, r)
		}
		t = out
	}
	return t
}

var spanishSnowball = snowballStem(spanish.Stem)

// spanishStem restores the accents that the Snowball Spanish stemmer's
// noun suffixes spell (-ción, -logía/-logías) and stems.
func spanishStem(t []byte) []byte {
	switch {
	case bytes.HasSuffix(t, []byte("cion")) && len(t) > 5:
		t = append(t[:len(t)-2], "ón"...)
	case bytes.HasSuffix(t, []byte("logia")) && len(t) > 6:
		t = append(t[:len(t)-2], "ía"...)
	case bytes.HasSuffix(t, []byte("logias")) && len(t) > 7:
		t = append(t[:len(t)-3], "ías"...)
	}
	return spanishNormalize(spanishSnowball(t))
}

// russianNormalize maps ё to е.
func russianNormalize(t []byte) []byte {
	if !bytes.Contains(t, []byte("ё")) {
		return t
	}
	return bytes.ReplaceAll(t, []byte("ё"), []byte("е"))
}

// GermanStopWords is the Snowball German stop word list (Lucene's
// german_stop.txt) plus "dass", the post-1996 spelling of "daß".
const GermanStopWords = `aber alle allem allen aller alles als also am an ander andere anderem anderen
anderer anderes anderm andern anderr anders auch auf aus bei bin bis bist da damit dann der den des
dem die das daß dass derselbe derselben denselben desselben demselben dieselbe dieselben dasselbe
dazu dein deine deinem deinen deiner deines denn derer dessen dich dir du dies diese diesem diesen
dieser dieses doch dort durch ein eine einem einen einer eines einig einige einigem einigen einiger
einiges einmal er ihn ihm es etwas euer eure eurem euren eurer eures für gegen gewesen hab habe
haben hat hatte hatten hier hin hinter ich mich mir ihr ihre ihrem ihren ihrer ihres euch im in
indem ins ist jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt kann kein keine keinem
keinen keiner keines können könnte machen man manche manchem manchen mancher manches mein meine
meinem meinen meiner meines mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein
seine seinem seinen seiner seines selbst sich sie ihnen sind so solche solchem solchen solcher
solches soll sollte sondern sonst über um und uns unsere unserem unseren unser unseres unter viel
vom von vor während war waren warst was weg weil weiter welche welchem welchen welcher welches wenn
werde werden wie wieder will wir wird wirst wo wollen wollte würde würden zu zum zur zwar zwischen`

// SpanishStopWords is the Snowball Spanish stop word list (Lucene's
// spanish_stop.txt).
const SpanishStopWords = `de la que el en y a los del se las por un para con no una su al lo como
más pero sus le ya o este sí porque esta entre cuando muy sin sobre también me hasta hay donde
quien desde todo nos durante todos uno les ni contra otros ese eso ante ellos e esto mí antes
algunos qué unos yo otro otras otra él tanto esa estos mucho quienes nada muchos cual poco ella
estar estas algunas algo nosotros mi mis tú te ti tu tus ellas nosotras vosotros vosotras os mío
mía míos mías tuyo tuya tuyos tuyas suyo suya suyos suyas nuestro nuestra nuestros nuestras
vuestro vuestra vuestros vuestras esos esas estoy estás está estamos estáis están esté estés
estemos estéis estén estaré estarás estará estaremos estaréis estarán estaría estarías
estaríamos estaríais estarían estaba estabas estábamos estabais estaban estuve estuviste estuvo
estuvimos estuvisteis estuvieron estuviera estuvieras estuviéramos estuvierais estuvieran
estuviese estuvieses estuviésemos estuvieseis estuviesen estando estado estada estados estadas
estad he has ha hemos habéis han haya hayas hayamos hayáis hayan habré habrás habrá habremos
habréis habrán habría habrías habríamos habríais habrían había habías habíamos habíais habían
hube hubiste hubo hubimos hubisteis hubieron hubiera hubieras hubiéramos hubierais hubieran
hubiese hubieses hubiésemos hubieseis hubiesen habiendo habido habida habidos habidas soy eres es
somos sois son sea seas seamos seáis sean seré serás será seremos seréis serán sería serías
seríamos seríais serían era eras éramos erais eran fui fuiste fue fuimos fuisteis fueron fuera
fueras fuéramos fuerais fueran fuese fueses fuésemos fueseis fuesen siendo sido tengo tienes
tiene tenemos tenéis tienen tenga tengas tengamos tengáis tengan tendré tendrás tendrá tendremos
tendréis tendrán tendría tendrías tendríamos tendríais tendrían tenía tenías teníamos teníais
tenían tuve tuviste tuvo tuvimos tuvisteis tuvieron tuviera tuvieras tuviéramos tuvierais
tuvieran tuviese tuvieses tuviésemos tuvieseis tuviesen teniendo tenido tenida tenidos tenidas
tened`

// RussianStopWords is the Snowball Russian stop word list (Lucene's
// russian_stop.txt, with ё written е).
const RussianStopWords = `и в во не что он на я с со как а то все она так его но да ты к у же вы за
бы по только ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни
быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть надо
ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того
потому этого какой совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех
никогда можно при наконец два об другой хоть после над больше тот через эти нас про всего них
какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой
им более всегда конечно всю между`

// newNormalizedStopSet builds a stop set whose words went through norm.
func newNormalizedStopSet(words string, norm func([]byte) []byte) *stopSet {
	var normalized []string
	for _, w := range strings.Fields(words) {
		normalized = append(normalized, string(norm([]byte(w))))
	}
	return stopSetOf(normalized)
}

func init() {
	register(&compoundChain{
		wordChain: &wordChain{
			name:      German,
			normFirst: true,
			norm:      germanNormalize,
			stop:      newNormalizedStopSet(GermanStopWords, germanNormalize),
			stem:      snowballStem(german.Stem),
		},
		// German linking elements, longest first; "" joins directly.
		links: []string{"ens", "es", "en", "er", "s", "n", "e", ""},
	})
	register(&wordChain{
		name:      Spanish,
		normFirst: true,
		norm:      spanishNormalize,
		stop:      newNormalizedStopSet(SpanishStopWords, spanishNormalize),
		stem:      spanishStem,
	})
	register(&wordChain{
		name:      Russian,
		normFirst: true,
		norm:      russianNormalize,
		stop:      newNormalizedStopSet(RussianStopWords, russianNormalize),
		stem:      snowballStem(russian.Stem),
	})
}
