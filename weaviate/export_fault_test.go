package weaviate

// ObjectID is objectID, for tests that read objects from one node.
var ObjectID = objectID
