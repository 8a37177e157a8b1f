package pdf

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	for _, cache := range []string{"off", dir, dir} {
		start := time.Now()
		e := New(Options{CacheDir: cache})
		if err := e.Init(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Logf("cache=%s init %v", cache, time.Since(start))
		for _, f := range []string{"../testdata/corpus/de/burg-falkenried.pdf", "../testdata/corpus/ru/kedrovskaya-observatoriya.pdf", "../testdata/corpus/zh/yunxi-chayuan.pdf", "../testdata/bad/broken.pdf"} {
			data, _ := os.ReadFile(f)
			s := time.Now()
			text, meta, err := e.ExtractTextMetadata(context.Background(), data)
			t.Logf("%s %v meta=%v err=%v\n%s", f, time.Since(s), meta, err, text)
		}
		e.Close()
	}
}
