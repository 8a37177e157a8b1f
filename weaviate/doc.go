// Package weaviate is situate's index on Weaviate (a situate.IndexBackend):
// chunks stored with their original text, context, document id and version,
// heading, metadata and access list, in collections that run situate's
// ranking with Weaviate doing the retrieval.
//
// Each chunk is one object of <Collection>Chunks (text, context, heading,
// the vector from situate's embedder, "vectorizer": "none") and one object
// per lexical arm of the Engine (the language arm, the code arm, the
// word-pair arm) in the collection of that arm and the chunk's analyzer
// (<Collection>LangGerman, <Collection>CodeCode, <Collection>PairsStandard...),
// whose BM25 k1 and b are the arm's. Such an object holds the analyzer's
// output terms under Weaviate's whitespace tokenization, so BM25 sees
// exactly situate's terms: German, Russian and Spanish keep their stemming,
// Chinese its bigrams, code its identifier splitting; and a collection per
// analyzer keeps BM25's statistics per language, as situate's BM25 keeps
// them per partition. A query is analysed the same way and searched in
// each analyzer's collection; Weaviate's best matches are rescored with
// situate's BM25 (bm25.DocScore) from the collection's statistics, fetched
// in the same request (object count, summed lengths, each term's document
// frequency read back from its best match's score), so the scores are the
// embedded index's to the bit; the lists
// are merged by score, and the Engine combines the arms by its recipe and
// fuses the dense arm.
//
// Init checks that the server's BM25 returns the true top matches and
// refuses one that does not: Weaviate v1.35.2's default BlockMax WAND skips
// recently written objects once its heap is full. Start it with
// USE_BLOCKMAX_WAND=false (EnvHint), as scripts/dev-weaviate.sh and
// internal/weaviatetest do. With
// Config.Native, Weaviate ranks alone instead (its "word" tokenizer over the
// contextualized text in <Collection>Chunks and its relative-score hybrid),
// for comparison.
//
// A situate tenant is a Weaviate tenant. Filters are pushed down as
// Weaviate filters: the access list (a "public" flag and the principals),
// metadata equality and sets ("key\x1fvalue" entries), key existence, and
// number and date ranges (a typed property per metadata key, added on first
// use). <Collection>Docs holds one object per document and version,
// written after its chunks, from which the Engine's Open repairs what the
// store holds and Weaviate does not.
//
// Requests go to the configured nodes in turn and move on from a node that
// does not answer; Config.Replication and Config.Consistency set the
// replication factor of new collections and the consistency level of every
// read and write. With a replication factor of 3, QUORUM keeps searches and
// writes going while one node is down and loses nothing: replicated
// collections get Weaviate's asynchronous replication, which brings a
// returning node up to date, and time-based settling of deletions, and every
// deletion carries its time (README, "A node down").
//
// It speaks Weaviate's REST and GraphQL API with net/http (the official Go
// client is not served by this machine's module proxy). It imports the root
// package only.
package weaviate
