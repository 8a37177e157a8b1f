package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// hiddenFlags are registered but left out of --help: developer switches
// (profiling) that a user never needs.
var hiddenFlags = map[string]bool{"cpuprofile": true, "memprofile": true}

// profiling holds the hidden --cpuprofile and --memprofile flags of a
// command.
type profiling struct {
	cpu, mem *string
	cpuFile  *os.File
}

// profileFlags registers --cpuprofile FILE and --memprofile FILE on fs
// (hidden from --help).
func profileFlags(fs *flag.FlagSet) *profiling {
	return &profiling{
		cpu: fs.String("cpuprofile", "", "write a CPU profile (pprof) of the command to FILE"),
		mem: fs.String("memprofile", "", "write a heap profile (pprof, allocations included) to FILE when the command ends"),
	}
}

// start starts the CPU profile when asked for; stop must then be called.
func (p *profiling) start() error {
	if *p.mem != "" {
		runtime.MemProfileRate = 512 * 1024
	}
	if *p.cpu == "" {
		return nil
	}
	f, err := os.Create(*p.cpu)
	if err != nil {
		return fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("cpuprofile %s: %w", *p.cpu, err)
	}
	p.cpuFile = f
	return nil
}

// stop ends the CPU profile and writes the heap profile, when asked for.
func (p *profiling) stop() error {
	var err error
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if cerr := p.cpuFile.Close(); cerr != nil {
			err = fmt.Errorf("cpuprofile %s: %w", *p.cpu, cerr)
		}
		p.cpuFile = nil
	}
	if *p.mem != "" {
		f, ferr := os.Create(*p.mem)
		if ferr != nil {
			return fmt.Errorf("memprofile: %w", ferr)
		}
		defer f.Close()
		if werr := pprof.Lookup("allocs").WriteTo(f, 0); werr != nil {
			return fmt.Errorf("memprofile %s: %w", *p.mem, werr)
		}
	}
	return err
}
