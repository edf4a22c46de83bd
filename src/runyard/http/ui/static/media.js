// Stored files (/v1/files/{id}) as blob: URLs. An <img> or <audio> cannot send the API key, so
// the bytes are fetched through the Api and handed to the element as a blob: URL — once per file,
// shared by every element showing it. The URLs live as long as the transcript showing them:
// opening another thread empties it and clear() revokes them all.

export class StoredMedia {
  constructor(api) {
    this.api = api;
    this.urls = new Map(); // fileId -> Promise<blob: URL>
    this.metas = new Map(); // fileId -> Promise<{filename, mediaType, size}>
    this.made = new Set(); // every blob: URL handed out, to revoke
    this.generation = 0;
  }

  // A blob: URL for the file's bytes; rejects with the Api's error.
  url(fileId) {
    if (!this.urls.has(fileId)) {
      const generation = this.generation;
      const url = this.api.fileBlob(fileId).then((blob) => this.own(blob, generation));
      url.catch(() => this.forget(this.urls, fileId, url)); // a later view may try again
      this.urls.set(fileId, url);
    }
    return this.urls.get(fileId);
  }

  // A file the page already holds (an attachment just uploaded): no need to download it again.
  remember(fileId, blob) {
    if (!this.urls.has(fileId)) this.urls.set(fileId, Promise.resolve(this.own(blob, this.generation)));
  }

  meta(fileId) {
    if (!this.metas.has(fileId)) {
      const meta = this.api.fileMeta(fileId);
      meta.catch(() => this.forget(this.metas, fileId, meta));
      this.metas.set(fileId, meta);
    }
    return this.metas.get(fileId);
  }

  forget(cache, fileId, failed) {
    if (cache.get(fileId) === failed) cache.delete(fileId);
  }

  own(blob, generation) {
    const url = URL.createObjectURL(blob);
    // Fetched for a transcript that is gone by now: nobody will show it.
    if (generation !== this.generation) URL.revokeObjectURL(url);
    else this.made.add(url);
    return url;
  }

  clear() {
    for (const url of this.made) URL.revokeObjectURL(url);
    this.made.clear();
    this.urls.clear();
    this.metas.clear();
    this.generation += 1;
  }
}
