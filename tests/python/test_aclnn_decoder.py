# SPDX-License-Identifier: MIT
"""A small decoder block run through aclnn on the card the way ggml's CANN
backend runs one, and compared step by step with the same block computed
in numpy (float64, rounded to float16 where the card stores float16):
embedding rows (Embedding), RMSNorm, rotary embedding, a KV cache written
with InplaceIndexCopy, grouped-head attention (FusedInferAttentionScoreV2),
products over int8 and int4 weights with per-group scales
(WeightQuantBatchMatmulV2), SwiGlu, the residual Adds and the logits'
ArgMax. A prefill of a few tokens, then single-token steps, each feeding
back the card's choice. The BSND block takes its rows with Embedding and
fuses SwiGlu; the BNSD one takes them as ggml's GET_ROWS does (GatherV2,
int32) and applies Silu and Mul to the halves."""
import ctypes

import numpy as np
import pytest

import aclnn
from test_aclnn_quant import Int4Weight

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB = 64, 4, 2, 16, 96, 256
MAX_TOKENS, GROUP, EPS = 16, 32, 1e-6
PROMPT, STEPS = [17, 3, 250, 96, 41], 6
ROPE_INTERLEAVED = 1        # ggml's normal rope: pairs of neighbours rotate
# float16 storage of activations, weights' scales and the cache: a result
# may move by a few of float16's roundings, through a dozen operations
RTOL, ATOL = 1e-2, 1e-2


def f16(a):
    """a as the card holds it in float16, back in float64."""
    return np.asarray(a).astype(np.float16).astype(np.float64)


class View(aclnn._Handle):
    """An aclTensor over base's device memory: shape and strides (elements)
    from offset, as ggml hands out its views."""

    def __init__(self, base, shape, strides=None, offset=0):
        if strides is None:
            strides = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
        # what aclnn.TensorList copies of a tensor
        self.shape, self.strides, self.offset = tuple(shape), tuple(strides), offset
        self.acl_type, self.dtype = base.acl_type, base.dtype
        self.storage_elems, self.ptr = base.storage_elems, base.ptr
        self.base = base
        super().__init__(aclnn.nnopbase.aclCreateTensor(
            aclnn._i64_array(shape), len(shape), self.acl_type, aclnn._i64_array(strides),
            offset, aclnn.ACL_FORMAT_ND, aclnn._i64_array([self.storage_elems]), 1, self.ptr),
            aclnn.nnopbase.aclDestroyTensor)


def run_ok(op, *args):
    status = aclnn.run(op, *args)
    assert status == 0, f"aclnn{op}: {status} {aclnn.err_msg()}"


class QuantWeight:
    """A (k, n) weight of int8 or int4 values with float16 scales a group
    of GROUP rows, stored (n, k) as ggml's q8_0 and q4_0 and given to the
    card as a transposed view; .dense is what the product multiplies by."""

    def __init__(self, rng, k, n, bits):
        top = 8 if bits == 4 else 128
        w = rng.integers(-top, top, (k, n)).astype(np.int8)
        # outputs of about the inputs' size
        s = (rng.uniform(0.5, 1.5, (k // GROUP, n)) / (top * np.sqrt(k) / 2)).astype(np.float16)
        self.weight = Int4Weight(w, True) if bits == 4 else aclnn.tensor(w, strides=(1, k))
        self.scale = aclnn.tensor(s, strides=(1, k // GROUP))
        self.dense = w.astype(np.float64) * np.repeat(s.astype(np.float64), GROUP, axis=0)
        self.n = n

    def card(self, x16, rows):
        y = aclnn.tensor(np.zeros((rows, self.n), np.float16))
        run_ok("WeightQuantBatchMatmulV2", x16, self.weight, self.scale, None, None, None,
               None, ctypes.c_int(GROUP), y)
        return y


class Block:
    """The block's weights and its KV cache, on the card and in numpy."""

    def __init__(self, rng, layout):
        self.layout = layout
        self.embedding = rng.standard_normal((VOCAB, HIDDEN)).astype(np.float32)
        self.gammas = [(1 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32)
                       for _ in range(3)]
        qd, kvd = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
        self.wq, self.wk, self.wv = (QuantWeight(rng, HIDDEN, n, 8) for n in (qd, kvd, kvd))
        self.wo = QuantWeight(rng, qd, HIDDEN, 8)
        self.w_gate_up = QuantWeight(rng, HIDDEN, 2 * FFN, 4)
        self.w_down = QuantWeight(rng, FFN, HIDDEN, 4)
        self.w_out = QuantWeight(rng, HIDDEN, VOCAB, 8)
        self.dev_embedding = aclnn.tensor(self.embedding)
        self.dev_gammas = [aclnn.tensor(g) for g in self.gammas]
        if layout == "BSND":
            cache_shape = (MAX_TOKENS, KV_HEADS, HEAD_DIM)
        else:
            cache_shape = (KV_HEADS, MAX_TOKENS, HEAD_DIM)
        self.dev_cache = [aclnn.tensor(np.zeros(cache_shape, np.float16)) for _ in range(2)]
        self.host_cache = [np.zeros((MAX_TOKENS, KV_HEADS, HEAD_DIM)) for _ in range(2)]

    # ---- on the card -------------------------------------------------------

    def norm16(self, x, which, rows):
        """RMSNorm of x (rows, HIDDEN) F32, cast to F16 for the products."""
        y = aclnn.tensor(np.zeros((rows, HIDDEN), np.float32))
        rstd = aclnn.tensor(np.zeros((rows, 1), np.float32))
        run_ok("RmsNorm", x, self.dev_gammas[which], ctypes.c_double(EPS), y, rstd)
        y16 = aclnn.tensor(np.zeros((rows, HIDDEN), np.float16))
        run_ok("Cast", y, ctypes.c_int(aclnn.ACL_FLOAT16), y16)
        return y16

    def rope(self, t, heads, cos, sin):
        """t (rows, heads * HEAD_DIM) rotated in place as BSND."""
        rows = t.shape[0]
        bsnd = View(t, (1, rows, heads, HEAD_DIM))
        run_ok("RotaryPositionEmbedding", bsnd, cos, sin, ROPE_INTERLEAVED, bsnd)

    def write_cache(self, which, t, pos, rows):
        """ggml's SET_ROWS: the new keys or values at their positions."""
        index = aclnn.tensor(np.arange(pos, pos + rows, dtype=np.int64))
        if self.layout == "BSND":
            src = View(t, (rows, KV_HEADS, HEAD_DIM))
            run_ok("InplaceIndexCopy", self.dev_cache[which], 0, index, src)
        else:
            src = View(t, (KV_HEADS, rows, HEAD_DIM), (HEAD_DIM, KV_HEADS * HEAD_DIM, 1))
            run_ok("InplaceIndexCopy", self.dev_cache[which], 1, index, src)

    def cache_view(self, which, length):
        c = self.dev_cache[which]
        if self.layout == "BSND":
            return View(c, (1, length, KV_HEADS, HEAD_DIM))
        return View(c, (1, KV_HEADS, length, HEAD_DIM),
                    (KV_HEADS * MAX_TOKENS * HEAD_DIM, MAX_TOKENS * HEAD_DIM, HEAD_DIM, 1))

    def attention(self, q, pos, rows):
        """q (rows, HEADS * HEAD_DIM) over the cache's first pos + rows
        tokens; a prefill's queries see no later key (ggml's F16 mask, its
        head axis broadcast)."""
        length = pos + rows
        out = aclnn.tensor(np.zeros((rows, HEADS * HEAD_DIM), np.float16))
        if self.layout == "BSND":
            qv, ov = (View(t, (1, rows, HEADS, HEAD_DIM)) for t in (q, out))
        else:
            strides = (rows * HEADS * HEAD_DIM, HEAD_DIM, HEADS * HEAD_DIM, 1)
            qv, ov = (View(t, (1, HEADS, rows, HEAD_DIM), strides) for t in (q, out))
        mask = None
        if rows > 1:
            later = np.arange(length)[None, :] > pos + np.arange(rows)[:, None]
            m = np.where(later, -np.inf, 0).astype(np.float16)
            mask = aclnn.tensor(m[None, None].repeat(HEADS, axis=1),
                                strides=(rows * length, 0, length, 1))
        k, v = (aclnn.tensor_list([self.cache_view(i, length)]) for i in range(2))
        opt = [None] * 17
        run_ok("FusedInferAttentionScoreV2", qv, k, v, mask, None, None, None, *opt,
               HEADS, 1 / np.sqrt(HEAD_DIM), 65535, 65535,
               ctypes.c_char_p(self.layout.encode()), KV_HEADS, 0, 0, 0, 0, False, 0, 0,
               ov, None)
        return out

    def add(self, x, y, rows):
        z = aclnn.tensor(np.zeros((rows, HIDDEN), np.float32))
        run_ok("Add", x, y, aclnn.scalar(1.0), z)
        return z

    def swiglu(self, gate_up, rows):
        """silu(gate) * up of gate_up (rows, 2 * FFN): ggml's fused SwiGlu
        over a 3-D view, or its two operators over the halves' views."""
        act = aclnn.tensor(np.zeros((rows, FFN), np.float16))
        if self.layout == "BSND":
            run_ok("SwiGlu", View(gate_up, (1, rows, 2 * FFN)), 2, View(act, (1, rows, FFN)))
            return act
        gate, up = (View(gate_up, (rows, FFN), (2 * FFN, 1), offset) for offset in (0, FFN))
        silu = aclnn.tensor(np.zeros((rows, FFN), np.float16))
        run_ok("Silu", gate, silu)
        run_ok("Mul", silu, up, act)
        return act

    def card_step(self, tokens, pos):
        """The logits (F16) and their argmax for tokens at positions pos..."""
        rows = len(tokens)
        theta = rope_angles(pos, rows)
        cos, sin = (aclnn.tensor(np.repeat(f(theta), 2, -1)[None, :, None].astype(np.float16))
                    for f in (np.cos, np.sin))
        x = aclnn.tensor(np.zeros((rows, HIDDEN), np.float32))
        if self.layout == "BSND":
            run_ok("Embedding", self.dev_embedding, aclnn.tensor(np.array(tokens, np.int64)), x)
        else:   # ggml's GET_ROWS: int32 row numbers
            run_ok("GatherV2", self.dev_embedding, 0, aclnn.tensor(np.array(tokens, np.int32)), x)
        h = self.norm16(x, 0, rows)
        q, k, v = (w.card(h, rows) for w in (self.wq, self.wk, self.wv))
        self.rope(q, HEADS, cos, sin)
        self.rope(k, KV_HEADS, cos, sin)
        self.write_cache(0, k, pos, rows)
        self.write_cache(1, v, pos, rows)
        x = self.add(x, self.wo.card(self.attention(q, pos, rows), rows), rows)
        gate_up = self.w_gate_up.card(self.norm16(x, 1, rows), rows)
        act = self.swiglu(gate_up, rows)
        x = self.add(x, self.w_down.card(act, rows), rows)
        logits = self.w_out.card(self.norm16(x, 2, rows), rows)
        best = aclnn.tensor(np.zeros(rows, np.int64))
        run_ok("ArgMax", logits, -1, False, best)
        return x.numpy(), logits.numpy(), best.numpy()

    # ---- in numpy ------------------------------------------------------------

    def host_norm16(self, x, which):
        rstd = 1 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + EPS)
        return f16(x * rstd * self.gammas[which].astype(np.float64))

    def host_step(self, tokens, pos):
        rows, length = len(tokens), pos + len(tokens)
        theta = rope_angles(pos, rows)
        cos, sin = (f16(np.repeat(f(theta), 2, -1))[:, None] for f in (np.cos, np.sin))
        x = self.embedding[tokens].astype(np.float64)
        h = self.host_norm16(x, 0)
        q, k, v = (f16(h @ w.dense).reshape(rows, -1, HEAD_DIM)
                   for w in (self.wq, self.wk, self.wv))
        q, k = (f16(host_rope(t, cos, sin)) for t in (q, k))
        self.host_cache[0][pos:length], self.host_cache[1][pos:length] = k, v
        keys, values = (np.repeat(c[:length], HEADS // KV_HEADS, axis=1)
                        for c in self.host_cache)
        s = np.einsum("qnd,knd->nqk", q, keys) / np.sqrt(HEAD_DIM)
        s = np.where(np.arange(length)[None, None] > pos + np.arange(rows)[None, :, None],
                     -np.inf, s)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        att = f16(np.einsum("nqk,knd->qnd", p, values)).reshape(rows, -1)
        x = x + f16(att @ self.wo.dense)
        gate, up = np.split(f16(self.host_norm16(x, 1) @ self.w_gate_up.dense), 2, axis=-1)
        x = x + f16(f16(gate / (1 + np.exp(-gate)) * up) @ self.w_down.dense)
        return x, f16(self.host_norm16(x, 2) @ self.w_out.dense)


def rope_angles(pos, rows):
    """ggml's angles for positions pos ...: (rows, HEAD_DIM / 2)."""
    inv = 10000.0 ** (-np.arange(0, HEAD_DIM, 2) / HEAD_DIM)
    return np.arange(pos, pos + rows)[:, None] * inv


def host_rope(x, cos, sin):
    rot = np.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
    return x * cos + rot * sin


def check_logits(got, want, best):
    """The card's logits near numpy's, its ArgMax the logits' first
    maximum, and numpy's choice unless two logits are closer than the
    tolerance (then the card's is one of the tied)."""
    tol = ATOL * np.abs(want).max()
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=RTOL, atol=tol)
    np.testing.assert_array_equal(best, got.argmax(axis=-1))
    for row, choice in zip(want, best):
        top2 = np.sort(row)[-2:]
        if top2[1] - top2[0] > 2 * tol:
            assert choice == row.argmax()
        else:
            assert row[choice] >= top2[1] - 2 * tol


@pytest.mark.parametrize("layout", ["BSND", "BNSD"])
def test_decoder_prefill_then_steps_match_numpy(device, layout):
    block = Block(np.random.default_rng(2604), layout)
    tokens, pos = list(PROMPT), 0
    for _ in range(STEPS + 1):
        fresh = tokens[pos:]
        x, logits, best = block.card_step(fresh, pos)
        want_x, want_logits = block.host_step(fresh, pos)
        np.testing.assert_allclose(x, want_x, rtol=RTOL, atol=ATOL * np.abs(want_x).max())
        check_logits(logits, want_logits, best)
        pos = len(tokens)
        tokens.append(int(best[-1]))
    assert len(tokens) == len(PROMPT) + STEPS + 1
    # the cache holds every token's keys and values, as numpy's does
    for i in range(2):
        got = block.dev_cache[i].numpy().astype(np.float64)
        if layout == "BNSD":
            got = got.transpose(1, 0, 2)
        n = len(tokens) - 1
        np.testing.assert_allclose(got[:n], block.host_cache[i][:n], rtol=RTOL, atol=ATOL)
        assert not got[n:].any()


def test_a_step_past_the_cache_fails_and_leaves_the_cache(device, stream):
    """Positions beyond the cache: the write fails the stream and touches
    nothing, so the block's next step still matches numpy."""
    block = Block(np.random.default_rng(2605), "BSND")
    x, logits, best = block.card_step(PROMPT, 0)
    cache = block.dev_cache[0].numpy()
    rows = aclnn.tensor(np.ones((2, KV_HEADS, HEAD_DIM), np.float16))
    index = aclnn.tensor(np.array([len(PROMPT), MAX_TOKENS], np.int64))
    ret, size, ex = aclnn.prepare("InplaceIndexCopy", block.dev_cache[0], 0, index, rows)
    assert ret == 0, aclnn.err_msg()
    work = aclnn.DeviceMemory(size) if size else None
    assert aclnn.launch("InplaceIndexCopy", work.ptr.value if work else None, size, ex,
                        stream) == 0
    assert aclnn.acl.aclrtSynchronizeStream(ctypes.c_void_p(stream)) != 0
    np.testing.assert_array_equal(block.dev_cache[0].numpy(), cache)
    block.host_step(PROMPT, 0)
    token = int(best[-1])
    x, logits, best = block.card_step([token], len(PROMPT))
    want_x, want_logits = block.host_step([token], len(PROMPT))
    np.testing.assert_allclose(x, want_x, rtol=RTOL, atol=ATOL * np.abs(want_x).max())
    check_logits(logits, want_logits, best)
