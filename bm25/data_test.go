package bm25

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/situate/situate/internal/shareddata"
)

// sharedData returns ../shared/data/<rel>, or skips the test when absent.
func sharedData(tb testing.TB, rel string) string {
	tb.Helper()
	return shareddata.Path(tb, rel)
}

type textDoc struct{ id, text string }

// readCACM reads the CACM collection in place (see shareddata.CACM).
func readCACM(tb testing.TB) []textDoc {
	tb.Helper()
	var docs []textDoc
	for _, d := range shareddata.CACM(tb) {
		docs = append(docs, textDoc{d.ID, d.Text})
	}
	return docs
}

var topicRE = regexp.MustCompile(`(?s)<DOC>\s*<DOCNO>\s*(\d+)\s*</DOCNO>(.*?)</DOC>`)

// readTopics reads topics.cacm.txt: the whole text of a topic is its query.
func readTopics(tb testing.TB) []textDoc {
	tb.Helper()
	path := sharedData(tb, "cacm/topics.cacm.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []textDoc
	for _, m := range topicRE.FindAllStringSubmatch(string(b), -1) {
		out = append(out, textDoc{m[1], m[2]})
	}
	if len(out) == 0 {
		tb.Fatalf("read %s: no topics", path)
	}
	return out
}

// readQrels reads TREC qrels: topic -> relevant docids (relevance > 0).
func readQrels(tb testing.TB) map[string]map[string]bool {
	tb.Helper()
	path := sharedData(tb, "cacm/qrels.cacm.txt")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 {
			continue
		}
		rel, err := strconv.Atoi(fs[3])
		if err != nil {
			tb.Fatalf("read %s: %q: %v", path, sc.Text(), err)
		}
		if rel > 0 {
			if out[fs[0]] == nil {
				out[fs[0]] = map[string]bool{}
			}
			out[fs[0]][fs[2]] = true
		}
	}
	return out
}
