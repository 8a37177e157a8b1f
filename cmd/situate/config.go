package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/situate/situate/wiring"
)

// A setting is one configuration value (wiring.Defs) with its effective
// value and where that comes from; flags override the environment, which
// overrides the file, which overrides the default.
type setting struct {
	wiring.Setting
	value  string
	origin string
}

type config struct {
	settings map[string]*setting
	order    []string
	file     string // configuration file read, if any
}

func newConfig() *config {
	c := &config{settings: map[string]*setting{}}
	for _, d := range wiring.Defs() {
		c.settings[d.Name] = &setting{Setting: d, value: d.Default, origin: "default"}
		c.order = append(c.order, d.Name)
	}
	return c
}

// Value and Origin make the configuration the wiring package's Settings.
func (c *config) Value(name string) string  { return c.settings[name].value }
func (c *config) Origin(name string) string { return c.settings[name].origin }

// flags registers the named settings on fs; a flag given on the command line
// records its value with origin "flag".
func (c *config) flags(fs *flag.FlagSet, names ...string) {
	for _, n := range names {
		s := c.settings[n]
		if s == nil {
			panic("unknown setting " + n)
		}
		usage := s.Usage
		if s.Env != "" {
			usage += " (env " + s.Env + ")"
		}
		if s.Default != "" && !s.Bool {
			usage += " (default " + s.Default + ")"
		}
		set := func(v string) error {
			if s.List && s.origin == "flag" {
				s.value += "," + v
			} else {
				s.value = v
			}
			s.origin = "flag"
			return nil
		}
		if s.Bool {
			fs.BoolFunc(n, usage, func(v string) error {
				if _, err := strconv.ParseBool(v); err != nil {
					return fmt.Errorf("want true or false")
				}
				return set(v)
			})
		} else {
			fs.Var(settingValue{s, set}, n, usage)
		}
	}
}

// settingValue is a setting as a flag.Value; its kind is shown in help.
type settingValue struct {
	s   *setting
	set func(string) error
}

func (v settingValue) String() string     { return "" }
func (v settingValue) Set(x string) error { return v.set(x) }
func (v settingValue) kind() string       { return v.s.kind() }

// kind names the type of a setting's value for help: int, number,
// duration, list or string.
func (s *setting) kind() string {
	switch {
	case s.Bool:
		return ""
	case s.List:
		return "list"
	case wiring.FloatSettings[s.Name]:
		return "number"
	}
	if _, err := strconv.Atoi(s.Default); err == nil {
		return "int"
	}
	if _, err := time.ParseDuration(s.Default); err == nil && s.Default != "" {
		return "duration"
	}
	return "string"
}

// load applies the environment and the configuration file below the flags
// already parsed.
func (c *config) load(e *env) error {
	for _, n := range c.order {
		s := c.settings[n]
		if s.origin == "flag" || s.Env == "" {
			continue
		}
		if v := e.getenv(s.Env); v != "" {
			s.value, s.origin = v, "env "+s.Env
		}
	}
	path := c.settings["config"].value
	explicit := path != ""
	if !explicit {
		path = filepath.Join(c.storeDir(e), "situate.toml")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("config %s: %w", path, err)
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	c.file = path
	for key, v := range raw {
		s := c.settings[key]
		if s == nil || key == "config" {
			return fmt.Errorf("config %s: unknown setting %q (known: %s)", path, key, strings.Join(c.order, ", "))
		}
		if s.origin == "flag" || strings.HasPrefix(s.origin, "env ") {
			continue
		}
		var val string
		switch x := v.(type) {
		case []any:
			parts := make([]string, len(x))
			for i, p := range x {
				parts[i] = fmt.Sprint(p)
			}
			val = strings.Join(parts, ",")
		default:
			val = fmt.Sprint(x)
		}
		s.value, s.origin = val, "config "+path
	}
	return nil
}

func (c *config) storeDir(e *env) string { return wiring.StoreDir(c, e.wiring()) }

func (c *config) str(name string) string { return c.settings[name].value }

func (c *config) list(name string) []string { return wiring.List(c, name) }

func (c *config) int(name string) (int, error) { return wiring.Int(c, name) }

func (c *config) float(name string) (float64, error) { return wiring.Float(c, name) }

// parse parses args with fs, allowing flags after positional arguments
// ("situate search 'query' -k 5"), and loads the environment and file.
func (c *config) parse(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(e.stdout)
				fs.Usage()
				return nil, errHelpShown
			}
			return nil, usageError{Err: err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			positional = append(positional, rest[1:]...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	if err := c.load(e); err != nil {
		return nil, usageError{Err: err}
	}
	return positional, nil
}

// newFlagSet makes a command's flag set with a usage text naming its
// arguments.
func newFlagSet(name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: situate %s [flags] %s\n\n%s\n\nFlags:\n", name, args, summary)
		groups, _ := flagGroups.Load(fs)
		in := map[string]bool{}
		for _, g := range groups.([]flagGroup) {
			for _, n := range g.names {
				in[n] = true
			}
		}
		printFlags(fs, func(f *flag.Flag) bool { return !in[f.Name] })
		for _, g := range groups.([]flagGroup) {
			fmt.Fprintf(w, "\n%s:\n", g.title)
			printFlags(fs, func(f *flag.Flag) bool { return slices.Contains(g.names, f.Name) })
		}
	}
	flagGroups.Store(fs, []flagGroup(nil))
	return fs
}

// flagGroups holds, per flag set, the groups of flags its help shows apart
// under a heading (groupFlags); the other flags come first.
var flagGroups sync.Map // *flag.FlagSet -> []flagGroup

type flagGroup struct {
	title string
	names []string
}

// groupFlags shows the named flags of fs in their own group of the help,
// under title (which says when they apply).
func groupFlags(fs *flag.FlagSet, title string, names ...string) {
	groups, _ := flagGroups.Load(fs)
	flagGroups.Store(fs, append(slices.Clip(groups.([]flagGroup)), flagGroup{title, names}))
}

// printFlags prints the flags of fs that keep selects, each with its type
// and default.
func printFlags(fs *flag.FlagSet, keep func(*flag.Flag) bool) {
	w := fs.Output()
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f) || hiddenFlags[f.Name] {
			return
		}
		kind, usage := flag.UnquoteUsage(f)
		if v, ok := f.Value.(settingValue); ok {
			kind = v.kind()
		} else if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && !strings.Contains(usage, "default") {
			usage += " (default " + f.DefValue + ")"
		}
		if kind == "value" { // a flag.Func
			kind = "string"
		}
		if kind != "" {
			kind = " " + kind
		}
		fmt.Fprintf(w, "  --%s%s\n    \t%s\n", f.Name, kind, usage)
	})
}

func runConfig(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("config", "", "Print every setting's effective value and where it comes from (default, config file, env, flag).")
	c.flags(fs, c.order...)
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	names := slices.Clone(c.order)
	for _, n := range names {
		s := c.settings[n]
		fmt.Fprintf(e.stdout, "%-16s = %-22q # %s\n", n, s.value, s.origin)
	}
	return nil
}
