//go:build !unix

package ingest

import "io/fs"

// fileID identifies a directory for symlink loop detection. Without inode
// numbers loops are not detected by identity; the walk depth limit applies.
type fileID struct{ dev, ino uint64 }

func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
