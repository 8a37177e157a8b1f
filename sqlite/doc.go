// Package sqlite implements situate's Store on a single SQLite file, using
// modernc.org/sqlite (pure Go, no cgo).
//
// It owns the on-disk schema: documents, their chunks with the contexts they
// were indexed with, the context and vector caches that let an interrupted run
// resume, one usage row per provider call, and a small key/value table for
// engine state. The schema is versioned with PRAGMA user_version and migrated
// forward on Open; a file written by a newer build is refused with an error
// wrapping situate.ErrStoreTooNew.
//
// The file runs in WAL mode with a busy timeout and foreign keys on. Writes go
// through one connection with prepared statements and BEGIN IMMEDIATE; reads
// use a small pool of their own, so readers never wait for a writer and always
// see whole transactions. PutDocument replaces a document's record and chunks
// in one transaction: after a crash the store holds either the old or the new
// version, never a mix.
//
// Like every adapter, sqlite imports the root package and no other situate
// package.
package sqlite
