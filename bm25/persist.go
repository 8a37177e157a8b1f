package bm25

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// On disk an index is a directory of immutable segment files and one
// MANIFEST naming the committed segments with their sizes, checksums and
// deleted docs. A commit writes and fsyncs new segment files, then writes
// MANIFEST.tmp, fsyncs it, renames it over MANIFEST and fsyncs the
// directory. A crash at any point leaves either the old or the new MANIFEST,
// both pointing only at complete, fsynced segments; files no MANIFEST names
// are removed on the next Open. A LOCK file (flock) keeps a second process
// from opening the same directory.

const (
	manifestName  = "MANIFEST"
	manifestMagic = "SBM25MF1"
	lockName      = "LOCK"
	segPrefix     = "seg-"
	segSuffix     = ".seg"
)

func segFileName(n uint64) string { return fmt.Sprintf("%s%016x%s", segPrefix, n, segSuffix) }

// Open opens the persistent index in dir, creating it if missing.
func Open(dir string, opts Options) (*Index, error) {
	ix, err := New(opts)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("bm25 open: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bm25 open: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	ix.dir = dir
	ix.lock = lock
	segs, gen, next, err := readIndex(dir)
	if err != nil {
		lock.Close()
		return nil, err
	}
	ix.gen, ix.nextSeg = gen, next
	ix.snap.Store(newSnapshot(ix, segs, gen))
	removeUnreferenced(dir, segs)
	return ix, nil
}

func readIndex(dir string) (segs []snapSeg, gen, next uint64, err error) {
	path := filepath.Join(dir, manifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("bm25 open: %w", err)
	}
	if len(data) < len(manifestMagic)+4 || string(data[:len(manifestMagic)]) != manifestMagic {
		return nil, 0, 0, fmt.Errorf("bm25 open: %s: bad header: %w", path, errCorrupt)
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, 0, 0, fmt.Errorf("bm25 open: %s: checksum mismatch: %w", path, errCorrupt)
	}
	r := &reader{b: body, off: len(manifestMagic)}
	gen = r.uvarint()
	next = r.uvarint()
	n := r.int(1 << 24)
	for i := 0; i < n && r.err == nil; i++ {
		name := strings.Clone(r.str())
		size := r.uvarint()
		crc := uint32(r.uvarint())
		numDocs := r.int(1 << 31)
		delCount := r.int(uint64(numDocs))
		if r.err != nil {
			break
		}
		if !strings.HasPrefix(name, segPrefix) || strings.ContainsAny(name, `/\`) {
			return nil, 0, 0, fmt.Errorf("bm25 open: %s: bad segment name %q: %w", path, name, errCorrupt)
		}
		ss := snapSeg{delCount: delCount}
		if delCount > 0 {
			ss.del = make([]uint64, (numDocs+63)/64)
			d := uint64(0)
			for j := 0; j < delCount && r.err == nil; j++ {
				d += r.uvarint()
				if d >= uint64(numDocs) {
					r.err = fmt.Errorf("deleted doc %d of %s out of range: %w", d, name, errCorrupt)
					break
				}
				ss.del[d>>6] |= 1 << (d & 63)
			}
		}
		if r.err != nil {
			break
		}
		segPath := filepath.Join(dir, name)
		seg, err := mapSegment(segPath, name)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("bm25 open: segment named by %s: %w", path, err)
		}
		if uint64(len(seg.data)) != size || binary.LittleEndian.Uint32(seg.data[len(seg.data)-8:]) != crc {
			return nil, 0, 0, fmt.Errorf("bm25 open: %s: size or checksum differs from %s: %w", segPath, path, errCorrupt)
		}
		if seg.numDocs != numDocs {
			return nil, 0, 0, fmt.Errorf("bm25 open: %s: %d docs, manifest says %d: %w", segPath, seg.numDocs, numDocs, errCorrupt)
		}
		ss.seg = seg
		segs = append(segs, ss)
	}
	if r.err != nil {
		return nil, 0, 0, fmt.Errorf("bm25 open: %s: %w", path, r.err)
	}
	return segs, gen, next, nil
}

func writeManifest(dir string, gen, next uint64, segs []snapSeg) error {
	b := []byte(manifestMagic)
	b = binary.AppendUvarint(b, gen)
	b = binary.AppendUvarint(b, next)
	b = binary.AppendUvarint(b, uint64(len(segs)))
	for _, ss := range segs {
		s := ss.seg
		b = appendString(b, s.name)
		b = binary.AppendUvarint(b, uint64(len(s.data)))
		b = binary.AppendUvarint(b, uint64(binary.LittleEndian.Uint32(s.data[len(s.data)-8:])))
		b = binary.AppendUvarint(b, uint64(s.numDocs))
		b = binary.AppendUvarint(b, uint64(ss.delCount))
		prev := uint32(0)
		for d := 0; d < s.numDocs && ss.delCount > 0; d++ {
			if ss.deleted(uint32(d)) {
				b = binary.AppendUvarint(b, uint64(uint32(d)-prev))
				prev = uint32(d)
			}
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	tmp := manifestName + ".tmp"
	if err := writeFileSync(dir, tmp, b); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(dir, tmp), filepath.Join(dir, manifestName)); err != nil {
		return fmt.Errorf("commit manifest: %w", err)
	}
	return syncDir(dir)
}

// writeFileSync writes a new file and fsyncs it.
func writeFileSync(dir, name string, data []byte) error {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

func removeFile(dir, name string) {
	if name != "" {
		os.Remove(filepath.Join(dir, name))
	}
}

// removeUnreferenced deletes segment files and temporary manifests left by
// writes that never committed.
func removeUnreferenced(dir string, segs []snapSeg) {
	live := map[string]bool{}
	for _, ss := range segs {
		live[ss.seg.name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if (strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segSuffix) && !live[n]) || n == manifestName+".tmp" {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
