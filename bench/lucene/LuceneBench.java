// LuceneBench indexes and searches with Lucene 8 (Debian liblucene8-java) the
// same inputs as situate's bm25 benchmarks and parity tests, so the two can be
// compared side by side. See run.sh.
//
//   java LuceneBench bench <corpus.tsv> <indexDir> <threads> <queries>...
//       corpus.tsv: id \t group \t text per line (from bm25's
//       TestExportBenchCorpus). Indexes with EnglishAnalyzer and
//       BM25Similarity(1.2, 0.75), committing every 10,000 docs, then runs
//       every query file (one query per line) with k = 10 and 100 and prints
//       key=value lines: docs/s, index bytes, query p50/p99 in microseconds.
//
//   java LuceneBench smallfloat
//       Prints SmallFloat.byte4ToInt of every byte ("b <byte> <int>") and
//       intToByte4 of sample lengths ("i <int> <byte>").
//
//   java LuceneBench cacm <cacm.tar.gz> <topics.cacm.txt> <k>
//       Indexes CACM as Anserini does (English analyzer, BM25 k1=0.9 b=0.4)
//       and prints the top k of every topic: topic, docid, score as
//       Float.floatToIntBits in hex, and the score.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.regex.*;
import java.util.zip.GZIPInputStream;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.*;

public class LuceneBench {
  static Query bagOfWords(Analyzer a, String field, String text) throws IOException {
    LinkedHashMap<String, Integer> counts = new LinkedHashMap<>();
    try (TokenStream ts = a.tokenStream(field, text)) {
      CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) counts.merge(t.toString(), 1, Integer::sum);
      ts.end();
    }
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    for (Map.Entry<String, Integer> e : counts.entrySet()) {
      Query q = new TermQuery(new Term(field, e.getKey()));
      if (e.getValue() > 1) q = new BoostQuery(q, (float) e.getValue());
      b.add(q, BooleanClause.Occur.SHOULD);
    }
    return b.build();
  }

  static long dirBytes(Path dir) throws IOException {
    long n = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) n += Files.size(p);
    }
    return n;
  }

  // Like situate's bm25: terms with frequencies and norms, no positions.
  static final FieldType TEXT = new FieldType();
  static {
    TEXT.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
    TEXT.setTokenized(true);
    TEXT.freeze();
  }

  static Document doc(String id, String group, String text) {
    Document d = new Document();
    d.add(new StringField("id", id, Field.Store.YES));
    d.add(new StringField("group", group, Field.Store.NO));
    d.add(new Field("text", text, TEXT));
    return d;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("bench")) bench(args);
    else if (args.length > 0 && args[0].equals("cacm")) cacm(args);
    else if (args.length > 0 && args[0].equals("smallfloat")) smallfloat();
    else {
      System.err.println("usage: LuceneBench bench corpus.tsv indexDir threads queries... | cacm cacm.tar.gz topics k");
      System.exit(2);
    }
  }

  static void bench(String[] args) throws Exception {
    List<String[]> docs = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(Paths.get(args[1]), StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) docs.add(line.split("\t", 3));
    }
    long raw = 0;
    for (String[] d : docs) raw += d[2].getBytes(StandardCharsets.UTF_8).length;
    Path dir = Paths.get(args[2]);
    int threads = Integer.parseInt(args[3]);
    Analyzer analyzer = new EnglishAnalyzer();
    BM25Similarity sim = new BM25Similarity(1.2f, 0.75f);
    IndexWriterConfig cfg = new IndexWriterConfig(analyzer).setSimilarity(sim)
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE).setRAMBufferSizeMB(256);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long t0 = System.nanoTime();
    try (FSDirectory fsd = FSDirectory.open(dir); IndexWriter w = new IndexWriter(fsd, cfg)) {
      for (int start = 0; start < docs.size(); start += 10000) {
        int end = Math.min(start + 10000, docs.size());
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          final int from = start + (end - start) * t / threads, to = start + (end - start) * (t + 1) / threads;
          fs.add(pool.submit(() -> {
            for (int i = from; i < to; i++) {
              String[] d = docs.get(i);
              w.addDocument(doc(d[0], d[1], d[2]));
            }
            return null;
          }));
        }
        for (Future<?> f : fs) f.get();
        w.commit();
      }
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    long bytes = dirBytes(dir);
    System.out.printf(Locale.ROOT, "lucene.index.docs=%d%n", docs.size());
    System.out.printf(Locale.ROOT, "lucene.index.seconds=%.3f%n", secs);
    System.out.printf(Locale.ROOT, "lucene.index.docs_per_s=%.0f%n", docs.size() / secs);
    System.out.printf(Locale.ROOT, "lucene.index.bytes=%d%n", bytes);
    System.out.printf(Locale.ROOT, "lucene.index.disk_pct_raw=%.2f%n", 100.0 * bytes / raw);

    try (FSDirectory fsd = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(fsd)) {
      IndexSearcher s = new IndexSearcher(reader);
      s.setSimilarity(sim);
      System.out.printf(Locale.ROOT, "lucene.index.segments=%d%n", reader.leaves().size());
      for (int qi = 4; qi < args.length; qi++) {
        List<Query> qs = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(args[qi]), StandardCharsets.UTF_8)) qs.add(bagOfWords(analyzer, "text", line));
        String name = Paths.get(args[qi]).getFileName().toString().replace(".txt", "");
        for (int k : new int[] {10, 100}) {
          for (int warm = 0; warm < 3; warm++) for (Query q : qs) s.search(q, k);
          long[] lat = new long[qs.size()];
          for (int i = 0; i < qs.size(); i++) {
            long q0 = System.nanoTime();
            s.search(qs.get(i), k);
            lat[i] = System.nanoTime() - q0;
          }
          Arrays.sort(lat);
          System.out.printf(Locale.ROOT, "lucene.search.%s.k%d.p50_us=%.0f%n", name, k, lat[lat.length / 2] / 1e3);
          System.out.printf(Locale.ROOT, "lucene.search.%s.k%d.p99_us=%.0f%n", name, k, lat[(int) (lat.length * 0.99)] / 1e3);
        }
      }
    }
  }

  static void smallfloat() {
    for (int b = 0; b < 256; b++) System.out.printf("b %d %d%n", b, org.apache.lucene.util.SmallFloat.byte4ToInt((byte) b));
    TreeSet<Integer> xs = new TreeSet<>();
    for (int i = 0; i <= 3000; i++) xs.add(i);
    for (long v = 3000; v < Integer.MAX_VALUE; v = v * 9 / 8 + 1) { xs.add((int) v); xs.add((int) v - 1); }
    xs.add(Integer.MAX_VALUE);
    for (int x : xs) System.out.printf("i %d %d%n", x, org.apache.lucene.util.SmallFloat.intToByte4(x) & 0xFF);
  }

  // Reads a .tar.gz, calling fn(name, content) for every regular file.
  static void untar(Path path, java.util.function.BiConsumer<String, byte[]> fn) throws IOException {
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(new GZIPInputStream(Files.newInputStream(path))))) {
      byte[] h = new byte[512];
      while (true) {
        try { in.readFully(h); } catch (EOFException e) { return; }
        if (h[0] == 0) return;
        String name = new String(h, 0, 100, StandardCharsets.UTF_8).replace("\0", "");
        String sz = new String(h, 124, 12, StandardCharsets.US_ASCII).replace("\0", "").trim();
        long size = sz.isEmpty() ? 0 : Long.parseLong(sz, 8);
        byte[] data = new byte[(int) size];
        in.readFully(data);
        long pad = (512 - size % 512) % 512;
        in.skipBytes((int) pad);
        if (h[156] == '0' || h[156] == 0) fn.accept(name, data);
      }
    }
  }

  static void cacm(String[] args) throws Exception {
    Analyzer analyzer = new EnglishAnalyzer();
    BM25Similarity sim = new BM25Similarity(0.9f, 0.4f);
    TreeMap<String, String> docs = new TreeMap<>();
    untar(Paths.get(args[1]), (name, data) -> {
      if (!name.endsWith(".html")) return;
      String text = new String(data, StandardCharsets.UTF_8);
      for (String tag : new String[] {"<html>", "</html>", "<pre>", "</pre>"}) {
        int i = text.indexOf(tag);
        if (i >= 0) text = text.substring(0, i) + " " + text.substring(i + tag.length());
      }
      String base = name.substring(name.lastIndexOf('/') + 1);
      docs.put(base.substring(0, base.length() - 5), text);
    });
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(analyzer).setSimilarity(sim))) {
      for (Map.Entry<String, String> e : docs.entrySet()) w.addDocument(doc(e.getKey(), e.getKey(), e.getValue()));
      w.forceMerge(1);
    }
    int k = Integer.parseInt(args[3]);
    String topics = new String(Files.readAllBytes(Paths.get(args[2])), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("(?s)<DOC>\\s*<DOCNO>\\s*(\\d+)\\s*</DOCNO>(.*?)</DOC>").matcher(topics);
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher s = new IndexSearcher(reader);
      s.setSimilarity(sim);
      while (m.find()) {
        TopDocs td = s.search(bagOfWords(analyzer, "text", m.group(2)), k);
        for (ScoreDoc sd : td.scoreDocs) {
          String id = reader.document(sd.doc).get("id");
          System.out.printf(Locale.ROOT, "%s %s %08x %.9g%n", m.group(1), id, Float.floatToIntBits(sd.score), sd.score);
        }
      }
    }
  }
}
