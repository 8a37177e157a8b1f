#!/usr/bin/env python3
"""Build the labelled language-detection set: files.tsv, one line per file:
label<TAB>format<TAB>path. Labels: en de es ru zh (prose in that language) and
code (source code, whose comments are English in these sources). Paths are
absolute files every Debian machine with Go and the packages below has
($GOROOT stands for the Go installation):

    apt-get install manpages manpages-de manpages-es manpages-ru manpages-zh
    python3 analysis/testdata/langdetect/build.py > analysis/testdata/langdetect/files.tsv

Sampling is deterministic: every k-th file of each sorted list. The list is
checked in; TestDetectLabelled reads the files it names (gzip included) and
measures each label that has at least 30 of its files present.
"""
import glob, os, subprocess, sys

def every(paths, n):
    paths = sorted(p for p in set(paths) if os.path.isfile(p) and os.path.getsize(p) > 200)
    if len(paths) <= n:
        return paths
    k = len(paths) / n
    return [paths[int(i * k)] for i in range(n)]

goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True).stdout.strip()
rows = []
def add(label, fmt, paths):
    for p in paths:
        rows.append((label, fmt, p))

# Code: Go (with tests), Python, Perl, C headers, shell, Tcl, JavaScript.
add("code", "code", every(glob.glob(goroot + "/src/**/*_test.go", recursive=True), 60))
add("code", "code", every([p for p in glob.glob(goroot + "/src/**/*.go", recursive=True) if not p.endswith("_test.go")], 90))
add("code", "code", every(glob.glob("/usr/lib/python3*/**/*.py", recursive=True), 50))
add("code", "code", every(glob.glob("/usr/share/perl*/**/*.pm", recursive=True), 25))
add("code", "code", every(glob.glob("/usr/include/**/*.h", recursive=True), 40))
add("code", "code", every(glob.glob("/usr/share/**/*.sh", recursive=True) + glob.glob("/usr/share/**/*.tcl", recursive=True), 25))
add("code", "code", every(glob.glob("/usr/share/**/*.js", recursive=True), 10))
# English documentation: READMEs, Go's own docs, English man pages (troff).
add("en", "text", every(glob.glob("/usr/share/doc/*/README*"), 50))
add("en", "markdown", every(glob.glob(goroot + "/**/*.md", recursive=True), 30))
add("en", "html", every(glob.glob(goroot + "/**/*.html", recursive=True) + glob.glob("/usr/share/doc/**/*.html", recursive=True), 20))
add("en", "text", every(glob.glob("/usr/share/man/man[1-8]/*.gz"), 60))
# Translated man pages (troff markup around the prose).
add("de", "text", every(glob.glob("/usr/share/man/de/man*/*.gz"), 100))
add("es", "text", every(glob.glob("/usr/share/man/es/man*/*.gz"), 100))
add("ru", "text", every(glob.glob("/usr/share/man/ru/man*/*.gz"), 100))
add("zh", "text", every(glob.glob("/usr/share/man/zh_CN/man*/*.gz"), 100))

for label, fmt, path in rows:
    if path.startswith(goroot + "/"):
        path = "$GOROOT" + path[len(goroot):]
    print("\t".join((label, fmt, path)))
