package apiclient

import (
	"net/url"
	"regexp"
	"strings"
)

// Redacted stands in for what Redact removes.
const Redacted = "[redacted]"

var (
	// bearerRe: an authorization scheme followed by its credential.
	bearerRe = regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{6,}`)
	// namedRe: a credential named as such, in a header, JSON, a query
	// string or prose ("x-api-key: ...", "api_key=...", "\"token\": \"...\"").
	namedRe = regexp.MustCompile(`(?i)(\b(?:x-api-key|x-goog-api-key|api[-_ ]?key|access[-_]?token|auth[-_]?token|refresh[-_]?token|client[-_]?secret|secret|password|passwd|authorization|token|key)["']?\s*[:=]\s*["']?)([^\s"'&,;}\]\[]{4,})`)
	// prefixRe: keys whose shape says what they are (OpenAI and Anthropic
	// sk-..., Google AIza..., GitHub ghp_..., Slack xox?-...).
	prefixRe = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{20,}|pa-[A-Za-z0-9_-]{20,})`)
	// longRe: a long run of key characters, judged by secretLike.
	longRe = regexp.MustCompile(`[A-Za-z0-9+/_=.-]{32,}`)
)

// Redact returns s with every secret given and everything that looks like
// a credential replaced by Redacted: bearer and basic credentials, values
// named api key, x-api-key, token, secret, password or authorization,
// sk-/AIza-style keys, and long hexadecimal or base64 runs that mix
// digits with letters. Provider error text passes through it before it is
// stored or printed, so an endpoint that echoes the request's key does not
// get it written to the usage ledger. Secrets shorter than 4 bytes are
// not searched for (they would match ordinary text).
func Redact(s string, secrets ...string) string {
	for _, k := range secrets {
		k = strings.TrimSpace(k)
		if len(k) < 4 {
			continue
		}
		for _, form := range []string{k, url.QueryEscape(k), url.PathEscape(k)} {
			s = strings.ReplaceAll(s, form, Redacted)
		}
	}
	s = bearerRe.ReplaceAllString(s, "$1 "+Redacted)
	s = namedRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := namedRe.FindStringSubmatch(m)
		v := strings.ToLower(sub[2])
		if strings.HasPrefix(sub[2], Redacted) || v == "bearer" || v == "basic" || !namedValue(sub[1], sub[2]) {
			return m
		}
		return sub[1] + Redacted
	})
	s = prefixRe.ReplaceAllString(s, Redacted)
	return longRe.ReplaceAllStringFunc(s, func(m string) string {
		if secretLike(m) {
			return Redacted
		}
		return m
	})
}

// namedValue reports whether value after name is worth redacting: a bare
// "key" or "token" name is common in ordinary messages ("key: value
// expected", "token: 12"), so for those two only values that carry a
// digit and a letter and are at least 8 bytes long count.
func namedValue(name, value string) bool {
	n := strings.ToLower(strings.Trim(name, "\"' \t:="))
	if n != "key" && n != "token" {
		return true
	}
	return len(value) >= 8 && strings.ContainsAny(value, "0123456789") &&
		strings.IndexFunc(value, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
}

// secretLike reports whether a long run is a secret rather than a word,
// a path or a model name: hexadecimal with digits and letters, or a mix
// of lower case, upper case and digits with no more than a third of it in
// separators.
func secretLike(m string) bool {
	var lower, upper, digit, sep, hex int
	for _, r := range m {
		switch {
		case r >= 'a' && r <= 'z':
			lower++
			if r <= 'f' {
				hex++
			}
		case r >= 'A' && r <= 'Z':
			upper++
			if r <= 'F' {
				hex++
			}
		case r >= '0' && r <= '9':
			digit++
			hex++
		default:
			sep++
		}
	}
	if sep == 0 && hex == len(m) && digit > 0 && digit < len(m) {
		return true
	}
	return lower > 0 && upper > 0 && digit > 0 && sep*3 <= len(m) && !strings.Contains(m, "/")
}
