package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/provider/voyage/voyagetest"
)

// TestReadOnlyStore copies a store onto a file system mounted read-only
// (root ignores permission bits, so a tmpfs is remounted read-only; the
// test skips where mount is not allowed, unless SITUATE_REQUIRE_ROFS=1)
// and runs the commands through the built binary: search (lexical and
// hybrid), status, show and check give the same output as on the
// writable store; index and rm fail saying the store is read-only.
func TestReadOnlyStore(t *testing.T) {
	dir := t.TempDir()
	emb := voyagetest.NewServer(voyagetest.Config{APIKey: "vk"})
	defer emb.Close()
	p := proc{bin: situateBin(t, dir), env: []string{"VOYAGE_API_KEY=vk"}}
	embed := []string{"--embed", "voyage:voyage-3.5", "--embed-base-url", emb.URL}
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	writeCorpus(t, corpus, 30)
	src := filepath.Join(dir, "src")
	p.mustRun(t, append(append([]string{"index", "--store", src}, embed...), corpus)...)

	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", ro).CombinedOutput(); err != nil {
			if os.Getenv("SITUATE_REQUIRE_ROFS") == "1" {
				t.Fatalf("mount tmpfs: %v: %s", err, out)
			}
			t.Skipf("running as root and cannot mount a tmpfs to make a read-only store: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", "-l", ro).Run() })
	}
	store := filepath.Join(ro, "store")
	copyTree(t, src, store)
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "-o", "remount,ro", ro).CombinedOutput(); err != nil {
			t.Fatalf("remount read-only: %v: %s", err, out)
		}
	} else {
		exec.Command("chmod", "-R", "a-w", ro).Run()
		t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", ro).Run() })
	}
	if f, err := os.Create(filepath.Join(store, "probe")); err == nil {
		f.Close()
		t.Fatal("the store is still writable")
	}
	strip := func(out, dir string) string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "store ") {
				keep = append(keep, strings.ReplaceAll(l, dir, "STORE"))
			}
		}
		return strings.Join(keep, "\n")
	}
	for _, args := range [][]string{
		{"search", "--json", "-k", "5", "Entity0007 Works revenue"},
		append(append([]string{"search", "--json", "-k", "5"}, embed...), "lamp keeper tower"),
		{"status"},
		{"show", "doc0003.md"},
		{"check"},
	} {
		want := strip(p.mustRun(t, append([]string{args[0], "--store", src}, args[1:]...)...), src)
		code, out, errOut := p.run(append([]string{args[0], "--store", store}, args[1:]...)...)
		if code != 0 {
			t.Errorf("%s on a read-only store: exit %d\n%s\n%s", args[0], code, out, errOut)
			continue
		}
		if got := strip(out, store); got != want {
			t.Errorf("%s on a read-only store differs:\n%s", args[0], firstDiff(got, want))
		}
	}
	for _, args := range [][]string{
		append(append([]string{"index", "--store", store}, embed...), corpus),
		{"rm", "--store", store, "doc0001.md"},
	} {
		code, out, errOut := p.run(args...)
		if code == 0 || !strings.Contains(strings.ToLower(errOut), "read-only") {
			t.Errorf("%s on a read-only store: exit %d, want a failure saying the store is read-only:\n%s\n%s", args[0], code, out, errOut)
		}
		t.Logf("%s: %s", args[0], strings.TrimSpace(errOut))
	}
}
