package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionInfo is what "situate version" reports, read from the build
// information the Go toolchain embeds in the binary.
type versionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

func readVersion() versionInfo {
	v := versionInfo{Module: "github.com/situate/situate", Version: "(unknown)", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("version", "", "Print situate's module version, the source revision it was built from, and the Go version.")
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return errHelpShown
		}
		return usageError{Err: err}
	}
	if fs.NArg() > 0 {
		return usagef("takes no arguments, got %q", fs.Arg(0))
	}
	v := readVersion()
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	fmt.Fprintf(e.stdout, "situate %s (%s)\n", v.Version, v.Module)
	if v.Revision != "" {
		dirty := ""
		if v.Modified {
			dirty = ", with uncommitted changes"
		}
		fmt.Fprintf(e.stdout, "revision %s %s%s\n", v.Revision, v.Time, dirty)
	}
	fmt.Fprintf(e.stdout, "%s %s\n", v.Go, v.Platform)
	return nil
}
