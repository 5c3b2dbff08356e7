// IndexedDB for the store tests: fake-indexeddb stands in for the browser's.
import "fake-indexeddb/auto";
