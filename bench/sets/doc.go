// Package sets holds the evaluation sets built from public sources, one
// directory each (docs/, queries.jsonl in the answers format of situate eval,
// a build script and a README naming source, commit and licence). It has no
// code: its test checks that every set still loads whole and that every
// answer can be found, so a set cannot rot unnoticed.
package sets
