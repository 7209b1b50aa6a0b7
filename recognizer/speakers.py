"""Who speaks when: voice embeddings of short windows of speech, then clustering.

The encoder is resemblyzer 0.1.4's GE2E speaker encoder (Apache-2.0): three
LSTM layers of 256 units and a linear layer over 40-channel mel frames, its
weights shipped inside the package's PyPI wheel (`resemblyzer/pretrained.pt`,
installed by hash, without its dependencies). The package itself is never
imported: it needs torch, which would bring gigabytes. The weights file is a
legacy (non-zip) `torch.save` pickle; `load_weights` reads it into numpy with
an allow-list unpickler (nothing but tensors and an ordered dict can come out
of it), and the network runs in numpy.

Per piece of a recording, `embed_windows` returns the embeddings of 1.6 s
windows every `hop` seconds inside the speech regions; `cluster` (run once
per job over all pieces, activity `labelSpeakers`) groups them into speakers
and `label_times` gives each word the speaker of the windows around it.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import pickle
import struct
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recognizer.wire import Json

SAMPLE_RATE = 16_000
# resemblyzer/hparams.py: 25 ms windows every 10 ms, 40 mel channels, partials of 160 frames (1.6 s).
N_FFT = 400
HOP = 160
N_MELS = 40
WINDOW_FRAMES = 160
WINDOW_SECONDS = WINDOW_FRAMES * HOP / SAMPLE_RATE
HIDDEN = 256
LAYERS = 3

WEIGHTS_SHA256 = "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e"


class EncoderError(Exception):
    """The speaker encoder's weights are missing or not the pinned file."""


def weights_path() -> Path:
    """`pretrained.pt` inside the installed resemblyzer package (found without importing it)."""
    found = importlib.util.find_spec("resemblyzer")
    if found is None or not found.submodule_search_locations:
        raise EncoderError("the package resemblyzer is not installed: run `bash stack/recognizer-setup.sh`")
    return Path(list(found.submodule_search_locations)[0]) / "pretrained.pt"


# ---------------------------------------------------------------- weights


class _Storage:
    def __init__(self, key: str, dtype: np.dtype[Any], size: int):
        self.key, self.dtype, self.size = key, dtype, size
        self.data: np.ndarray | None = None


class _Tensor:
    def __init__(self, storage: _Storage, offset: int, shape: tuple[int, ...], stride: tuple[int, ...]):
        self.storage, self.offset, self.shape, self.stride = storage, offset, shape, stride

    def array(self) -> np.ndarray:
        data = self.storage.data
        assert data is not None
        item = data.itemsize
        return np.lib.stride_tricks.as_strided(
            data[self.offset :], shape=self.shape, strides=tuple(s * item for s in self.stride)
        ).copy()


_STORAGE_TYPES: dict[str, np.dtype[Any]] = {"FloatStorage": np.dtype("<f4"), "DoubleStorage": np.dtype("<f8"), "LongStorage": np.dtype("<i8")}


def _rebuild_tensor(storage: _Storage, offset: int, shape: tuple[int, ...], stride: tuple[int, ...], *_rest: object) -> _Tensor:
    return _Tensor(storage, offset, tuple(shape), tuple(stride))


class _WeightsUnpickler(pickle.Unpickler):
    """Only what a checkpoint of plain tensors holds: anything else in the file is refused."""

    def __init__(self, file: io.BufferedIOBase, storages: dict[str, _Storage]):
        super().__init__(file)
        self.storages = storages

    def find_class(self, module: str, name: str) -> Any:
        if module == "collections" and name == "OrderedDict":
            return OrderedDict
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _STORAGE_TYPES:
            return name
        raise pickle.UnpicklingError(f"unexpected {module}.{name} in the speaker encoder's weights")

    def persistent_load(self, pid: Any) -> _Storage:
        kind, storage_type, key, _location, size = pid[:5]
        if kind != "storage" or storage_type not in _STORAGE_TYPES:
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        if key not in self.storages:
            self.storages[key] = _Storage(key, _STORAGE_TYPES[storage_type], int(size))
        return self.storages[key]


def load_weights(path: Path | None = None, sha256: str | None = WEIGHTS_SHA256) -> dict[str, np.ndarray]:
    """The checkpoint's `model_state` as numpy arrays (legacy torch.save format: pickles, then raw storages)."""
    path = path or weights_path()
    raw = path.read_bytes()
    if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
        raise EncoderError(f"{path} is not the pinned speaker encoder (sha256 {WEIGHTS_SHA256})")
    f = io.BytesIO(raw)
    storages: dict[str, _Storage] = {}
    for _ in range(3):  # magic number, protocol version, system info
        _WeightsUnpickler(f, storages).load()
    checkpoint = _WeightsUnpickler(f, storages).load()
    keys = _WeightsUnpickler(f, storages).load()
    for key in keys:
        (count,) = struct.unpack("<q", f.read(8))
        s = storages[key]
        s.data = np.frombuffer(f.read(count * s.dtype.itemsize), dtype=s.dtype)
    state = checkpoint["model_state"]
    return {name: t.array() for name, t in state.items() if isinstance(t, _Tensor)}


# ---------------------------------------------------------------- encoder


def _mel_filters() -> np.ndarray:
    from faster_whisper.feature_extractor import FeatureExtractor

    # Slaney-style filters up to 8 kHz: librosa's defaults, as resemblyzer's audio.py uses them.
    return np.asarray(FeatureExtractor.get_mel_filters(SAMPLE_RATE, N_FFT, N_MELS), dtype=np.float32)


def mel_frames(audio: np.ndarray, filters: np.ndarray) -> np.ndarray:
    """Power mel spectrogram (not log), frames × 40: librosa.feature.melspectrogram's defaults (centred, reflect padding)."""
    pad = N_FFT // 2
    x = np.pad(audio.astype(np.float32), (pad, pad), mode="reflect" if len(audio) > pad else "constant")
    n = 1 + (len(x) - N_FFT) // HOP
    frames = np.lib.stride_tricks.as_strided(x, shape=(n, N_FFT), strides=(x.strides[0] * HOP, x.strides[0]))
    window = np.hanning(N_FFT + 1)[:-1].astype(np.float32)
    power = np.abs(np.fft.rfft(frames * window, axis=1)) ** 2
    return np.asarray(power.astype(np.float32) @ filters.T, dtype=np.float32)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


class SpeakerEncoder:
    def __init__(self, weights: dict[str, np.ndarray] | None = None):
        w = weights or load_weights()
        self.layers = []
        for k in range(LAYERS):
            self.layers.append(
                (
                    w[f"lstm.weight_ih_l{k}"].T.copy(),
                    w[f"lstm.weight_hh_l{k}"].T.copy(),
                    (w[f"lstm.bias_ih_l{k}"] + w[f"lstm.bias_hh_l{k}"]).astype(np.float32),
                )
            )
        self.linear_w = w["linear.weight"].T.copy()
        self.linear_b = w["linear.bias"].copy()
        self.filters = _mel_filters()

    def embed_mels(self, mels: np.ndarray) -> np.ndarray:
        """Batch × 160 frames × 40 → batch × 256 L2-normed embeddings (the network's forward pass)."""
        batch, steps, _ = mels.shape
        seq = mels.astype(np.float32)
        h = np.zeros((batch, HIDDEN), np.float32)
        for w_ih, w_hh, bias in self.layers:
            # The input projection of every step at once; only the recurrence is step by step.
            projected = (seq.reshape(batch * steps, -1) @ w_ih + bias).reshape(batch, steps, 4 * HIDDEN)
            h = np.zeros((batch, HIDDEN), np.float32)
            c = np.zeros((batch, HIDDEN), np.float32)
            out = np.empty((batch, steps, HIDDEN), np.float32)
            for t in range(steps):
                gates = projected[:, t] + h @ w_hh
                i = _sigmoid(gates[:, :HIDDEN])
                f = _sigmoid(gates[:, HIDDEN : 2 * HIDDEN])
                g = np.tanh(gates[:, 2 * HIDDEN : 3 * HIDDEN])
                o = _sigmoid(gates[:, 3 * HIDDEN :])
                c = f * c + i * g
                h = o * np.tanh(c)
                out[:, t] = h
            seq = out
        e = np.maximum(h @ self.linear_w + self.linear_b, 0.0)
        norms = np.linalg.norm(e, axis=1, keepdims=True)
        return np.asarray(e / np.maximum(norms, 1e-9), dtype=np.float32)


@dataclass(frozen=True)
class SpeakerWindows:
    """Embeddings of windows of one piece: times in seconds from the piece's start."""

    starts: np.ndarray
    ends: np.ndarray
    embeddings: np.ndarray  # n × 256, float32, L2-normed

    def to_json(self) -> Json:
        return {
            "starts": [round(float(s), 3) for s in self.starts],
            "ends": [round(float(e), 3) for e in self.ends],
            # float16 keeps three significant digits, plenty for cosine distances, at a quarter of the JSON.
            "embeddings": base64.b64encode(self.embeddings.astype("<f2").tobytes()).decode("ascii"),
        }

    @staticmethod
    def from_json(d: Json, offset: float = 0.0) -> SpeakerWindows:
        starts = np.asarray(d["starts"], dtype=np.float64) + offset
        ends = np.asarray(d["ends"], dtype=np.float64) + offset
        emb = np.frombuffer(base64.b64decode(d["embeddings"]), dtype="<f2").astype(np.float32)
        return SpeakerWindows(starts, ends, emb.reshape(len(starts), -1) if len(starts) else np.zeros((0, HIDDEN), np.float32))


def window_spans(regions: list[tuple[float, float]], hop: float) -> list[tuple[float, float]]:
    """1.6 s windows every `hop` seconds inside each speech region; a shorter region gets one window around its middle."""
    spans = []
    for a, b in regions:
        if b - a <= WINDOW_SECONDS:
            mid = (a + b) / 2
            spans.append((mid - WINDOW_SECONDS / 2, mid + WINDOW_SECONDS / 2))
            continue
        n = int(np.floor((b - a - WINDOW_SECONDS) / hop)) + 1
        last = a + (n - 1) * hop
        starts = [a + k * hop for k in range(n)]
        if b - (last + WINDOW_SECONDS) > hop / 2:
            starts.append(b - WINDOW_SECONDS)
        spans += [(s, s + WINDOW_SECONDS) for s in starts]
    return spans


def embed_windows(
    encoder: SpeakerEncoder, audio: np.ndarray, regions: list[tuple[float, float]], hop: float = 0.4, batch: int = 64
) -> SpeakerWindows:
    spans = window_spans(regions, hop)
    if not spans:
        return SpeakerWindows(np.zeros(0), np.zeros(0), np.zeros((0, HIDDEN), np.float32))
    mels = mel_frames(audio, encoder.filters)
    total = len(mels)
    batches = []
    for s, _e in spans:
        first = int(round(s * SAMPLE_RATE / HOP))
        first = min(max(0, first), max(0, total - WINDOW_FRAMES))
        m = mels[first : first + WINDOW_FRAMES]
        if len(m) < WINDOW_FRAMES:
            m = np.pad(m, ((0, WINDOW_FRAMES - len(m)), (0, 0)))
        batches.append(m)
    stacked = np.stack(batches)
    emb = np.concatenate([encoder.embed_mels(stacked[i : i + batch]) for i in range(0, len(stacked), batch)])
    starts = np.array([max(0.0, s) for s, _ in spans])
    ends = np.array([min(len(audio) / SAMPLE_RATE, e) for _, e in spans])
    return SpeakerWindows(starts, ends, emb)


# Average-linkage clustering of cosine distances, cut at this distance when the number of speakers is not
# given. Measured on bench/sets "speakers" (12 conversations of 2 to 4 voices, windows every 0.6 s): the
# count right in 12 of 12, 99.9 % of words to the right speaker (bench/RESULTS.md).
CUT_DISTANCE = 0.4
# A cluster of fewer windows than this (and under 5 % of all) is an artefact (a cough, a laugh, a window
# over two voices): it joins the nearest cluster.
MIN_CLUSTER_WINDOWS = 3
MIN_CLUSTER_FRACTION = 0.05
REFINE_ROUNDS = 3


def _centroids(x: np.ndarray, labels: np.ndarray, ids: list[int]) -> np.ndarray:
    c = np.stack([x[labels == i].mean(axis=0) for i in ids])
    return np.asarray(c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-9))


def _refine(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each window moves to its nearest centroid, a few rounds (average linkage leaves border windows astray)."""
    for _ in range(REFINE_ROUNDS):
        ids = sorted(set(labels.tolist()))
        moved = np.array(ids)[np.argmax(x @ _centroids(x, labels, ids).T, axis=1)]
        if (moved == labels).all():
            break
        labels = moved
    return labels


def _merge_small(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    labels = labels.copy()
    floor = max(MIN_CLUSTER_WINDOWS, MIN_CLUSTER_FRACTION * len(x))
    while True:
        ids, counts = np.unique(labels, return_counts=True)
        if len(ids) <= 1 or counts.min() >= floor:
            return labels
        small = int(ids[np.argmin(counts)])
        others = [int(i) for i in ids if i != small]
        nearest = np.argmax((x[labels == small] @ _centroids(x, labels, others).T).mean(axis=0))
        labels[labels == small] = others[int(nearest)]


def cluster(embeddings: np.ndarray, expected: int | None = None) -> np.ndarray:
    """Speaker index (0, 1, …) of every window. With `expected`, exactly that many speakers where there are
    windows enough: the dendrogram is cut at the first level that leaves `expected` clusters of real size."""
    from scipy.cluster.hierarchy import fcluster, linkage

    n = len(embeddings)
    if n == 0:
        return np.zeros(0, dtype=int)
    if n == 1 or expected == 1:
        return np.zeros(n, dtype=int)
    x = embeddings.astype(np.float64)
    tree = linkage(x, method="average", metric="cosine")
    if expected is None:
        labels = _merge_small(x, fcluster(tree, CUT_DISTANCE, criterion="distance"))
    else:
        k = min(expected, n)
        labels = fcluster(tree, k, criterion="maxclust")
        # Small clusters (outlier windows) take places in a cut by count: cut finer until k real ones remain.
        for finer in range(k, min(n, k + 8) + 1):
            candidate = _merge_small(x, fcluster(tree, finer, criterion="maxclust"))
            if len(np.unique(candidate)) >= k:
                labels = candidate
                break
    labels = _refine(x, labels)
    _, dense = np.unique(labels, return_inverse=True)
    return dense.astype(int)


def label_times(windows: SpeakerWindows, labels: np.ndarray, times: list[tuple[float, float]]) -> list[int]:
    """The speaker of each (start, end) stretch (a word): the vote of the windows covering its middle, or the
    window whose centre is nearest when none covers it."""
    if len(labels) == 0:
        return [0] * len(times)
    centres = (windows.starts + windows.ends) / 2
    out = []
    for a, b in times:
        mid = (a + b) / 2
        cover = np.nonzero((windows.starts <= mid) & (windows.ends >= mid))[0]
        if len(cover) == 0:
            out.append(int(labels[int(np.argmin(np.abs(centres - mid)))]))
            continue
        # The window centred nearest the word breaks a tie: it hears most of it.
        votes = np.bincount(labels[cover])
        best = np.flatnonzero(votes == votes.max())
        if len(best) > 1:
            near = cover[np.argsort(np.abs(centres[cover] - mid))]
            out.append(int(next(labels[i] for i in near if labels[i] in best)))
        else:
            out.append(int(best[0]))
    return out


def speaker_names(indices: list[int]) -> list[str]:
    """"A", "B", … in order of first appearance (after Z: "AA", "AB", …)."""
    order: dict[int, str] = {}
    for i in indices:
        if i not in order:
            k = len(order)
            order[i] = chr(65 + k) if k < 26 else chr(64 + k // 26) + chr(65 + k % 26)
    return [order[i] for i in indices]


def concatenate(parts: list[SpeakerWindows]) -> SpeakerWindows:
    if not parts:
        return SpeakerWindows(np.zeros(0), np.zeros(0), np.zeros((0, HIDDEN), np.float32))
    return SpeakerWindows(
        np.concatenate([p.starts for p in parts]),
        np.concatenate([p.ends for p in parts]),
        np.concatenate([p.embeddings.reshape(-1, HIDDEN) for p in parts]),
    )
