"""Index storage: one folder per repository, ``<index.root>/<name>/`` (``name`` a plain folder
name, checked in ``names.py``).

- ``manifest.json`` (``manifest.py``, loaded into the strictly validated ``Manifest``): format
  version, ragcode version, embedder name and dim, config hashes, per-file content hashes,
  counts; it names the current generation's files and is swapped last (temp file + ``os.replace``), so a killed build leaves the old index intact.
- ``chunks-<gen>.sqlite`` (``chunk_store.py``): every chunk with a stable int64 id, and the files.
- ``vectors-<gen>.faiss`` (``vectors.py``): ``IndexIDMap2(IndexFlatIP)`` keyed by those ids.

Use ``ragcode.index.store.load_index`` to open one and ``ragcode.index.build.index_repo`` to
create or update one.
"""
