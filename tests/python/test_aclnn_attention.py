# SPDX-License-Identifier: MIT
"""aclnn's attention and rotary embedding (FusedInferAttentionScoreV2,
RotaryPositionEmbedding) on the card against numpy: a naive softmax
attention, and the rotation written out per mode."""
import ctypes

import numpy as np
import pytest

import aclnn

ACLNN_ERR_PARAM_INVALID = 161002
rng = np.random.default_rng(2600)
TOL = {np.float32: 2e-5, np.float16: 4e-3, "bf16": 3e-2}


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def run_ok(op, *args):
    status = aclnn.run(op, *args)
    assert status == 0, f"aclnn{op}: {status} {aclnn.err_msg()}"


def run_fails(op, code, words, *args):
    assert aclnn.run(op, *args) == code
    msg = aclnn.err_msg()
    for w in words:
        assert w in msg, msg


def close(got, want, tol):
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)


def to_bf16(x):
    """float32 to bfloat16 bits, rounded to nearest even, and the value they hold."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32)


def from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


# ---- FusedInferAttentionScoreV2 ---------------------------------------------

def attention_ref(q, k, v, scale, add=None, masked=None):
    """q (B, N, Sq, D), k and v (B, Nkv, Skv, D): softmax(q k^T scale + add) v
    in float64 over whole rows, key heads shared by N / Nkv query heads;
    masked scores left out, a row with none left is 0."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if add is not None:
        s = s + add.astype(np.float64)
    if masked is not None:
        s = np.where(np.broadcast_to(masked, s.shape), -np.inf, s)
    top = s.max(axis=-1, keepdims=True)
    e = np.where(np.isfinite(top), np.exp(s - np.where(np.isfinite(top), top, 0)), 0)
    total = e.sum(axis=-1, keepdims=True)
    return np.where(total > 0, (e @ v) / np.where(total > 0, total, 1), 0)


def fias(q, k, v, out, heads, scale, layout, kv_heads=0, pse=None, mask=None, lse=False,
         sparse=0, pre=65535, nxt=65535, extra=None, seq=None):
    """FusedInferAttentionScoreV2's arguments, ggml's choices for the rest."""
    opt = [None] * 17
    if extra is not None:
        opt[extra[0]] = extra[1]
    return aclnn.run("FusedInferAttentionScoreV2", q, aclnn.tensor_list([k]),
                     aclnn.tensor_list([v]), pse, mask, seq, None, *opt,
                     heads, float(scale), pre, nxt, ctypes.c_char_p(layout.encode()),
                     kv_heads, sparse, 0, 0, 0, lse, 0, 0, out, None)


def bsnd(a):
    """A (B, N, S, D) array's values laid out as BSND."""
    return np.ascontiguousarray(a.transpose(0, 2, 1, 3))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("layout", ["BNSD", "BSND"])
def test_fias_grouped_heads(device, dtype, layout):
    b, n, nkv, sq, skv, d = 2, 4, 2, 5, 37, 32
    q, k, v = rand(b, n, sq, d, dtype=dtype), rand(b, nkv, skv, d, dtype=dtype), \
        rand(b, nkv, skv, d, dtype=dtype)
    scale = 1 / np.sqrt(d)
    want = attention_ref(q, k, v, scale)
    lay = (lambda a: a) if layout == "BNSD" else bsnd
    y = aclnn.tensor(np.zeros(lay(want).shape, dtype))
    assert fias(aclnn.tensor(lay(q)), aclnn.tensor(lay(k)), aclnn.tensor(lay(v)), y, n, scale,
                layout, kv_heads=nkv) == 0, aclnn.err_msg()
    close(y.numpy(), lay(want), TOL[dtype])


def test_fias_bsnd_as_a_strided_view_of_bnsd(device):
    """query, key and value BSND views of BNSD storage (strides, no copy)."""
    b, n, sq, skv, d = 1, 2, 6, 9, 16
    q, k, v = rand(b, n, sq, d), rand(b, n, skv, d), rand(b, n, skv, d)
    want = attention_ref(q, k, v, 0.3)

    def view(a):
        bb, nn, ss, dd = a.shape
        return aclnn.tensor(bsnd(a), strides=[nn * ss * dd, dd, ss * dd, 1])
    y = aclnn.tensor(np.zeros((b, sq, n, d), np.float32))
    assert fias(view(q), view(k), view(v), y, n, 0.3, "BSND") == 0, aclnn.err_msg()
    close(y.numpy(), bsnd(want), TOL[np.float32])


def test_fias_bsh_and_bnsd_bsnd_layouts(device):
    b, n, sq, skv, d = 2, 3, 4, 11, 8
    q, k, v = rand(b, n, sq, d), rand(b, n, skv, d), rand(b, n, skv, d)
    want = attention_ref(q, k, v, 0.25)
    bsh = lambda a: bsnd(a).reshape(a.shape[0], a.shape[2], -1)     # noqa: E731
    y = aclnn.tensor(np.zeros((b, sq, n * d), np.float32))
    assert fias(aclnn.tensor(bsh(q)), aclnn.tensor(bsh(k)), aclnn.tensor(bsh(v)), y, n, 0.25,
                "BSH") == 0, aclnn.err_msg()
    close(y.numpy(), bsh(want), TOL[np.float32])
    y = aclnn.tensor(np.zeros((b, sq, n, d), np.float32))
    assert fias(aclnn.tensor(q), aclnn.tensor(k), aclnn.tensor(v), y, n, 0.25,
                "BNSD_BSND") == 0, aclnn.err_msg()
    close(y.numpy(), bsnd(want), TOL[np.float32])


def test_fias_pse_broadcast_over_heads_as_ggml_passes_its_mask(device):
    """ggml's mask: F16 (B, N, Sq, Skv) with the head axis a stride of 0,
    -inf on the keys a query may not see."""
    b, n, sq, skv, d = 1, 4, 6, 40, 16
    q, k, v = (rand(b, n, s, d, dtype=np.float16) for s in (sq, skv, skv))
    m = np.where(np.arange(skv)[None, :] > np.arange(sq)[:, None] + skv - sq, -np.inf,
                 rand(sq, skv) * 0.5).astype(np.float16)
    want = attention_ref(q, k, v, 0.25, add=m[None, None])
    pse = aclnn.tensor(m[None, None].repeat(n, axis=1), strides=[sq * skv, 0, skv, 1])
    y = aclnn.tensor(np.zeros((b, sq, n, d), np.float16))
    assert fias(aclnn.tensor(bsnd(q)), aclnn.tensor(bsnd(k)), aclnn.tensor(bsnd(v)), y, n, 0.25,
                "BSND", pse=pse) == 0, aclnn.err_msg()
    close(y.numpy(), bsnd(want), TOL[np.float16])


@pytest.mark.parametrize("mdtype", [np.bool_, np.uint8, np.int8])
def test_fias_atten_mask_causal_and_a_row_left_with_nothing(device, mdtype):
    b, n, sq, skv, d = 2, 2, 5, 5, 8
    q, k, v = rand(b, n, sq, d), rand(b, n, skv, d), rand(b, n, skv, d)
    masked = np.triu(np.ones((sq, skv), bool), 1)
    per_batch = np.broadcast_to(masked, (b, 1, sq, skv)).copy()
    per_batch[1, 0, 3, :] = True
    for m in (masked, per_batch):
        want = attention_ref(q, k, v, 0.35, masked=m)
        y = aclnn.tensor(np.zeros((b, n, sq, d), np.float32))
        assert fias(aclnn.tensor(q), aclnn.tensor(k), aclnn.tensor(v), y, n, 0.35, "BNSD",
                    mask=aclnn.tensor(m.astype(mdtype))) == 0, aclnn.err_msg()
        close(y.numpy(), want, TOL[np.float32])
    assert not y.numpy()[1, :, 3].any()


def test_fias_pse_and_atten_mask_together(device):
    b, n, sq, skv, d = 2, 2, 3, 7, 8
    q, k, v = rand(b, n, sq, d), rand(b, n, skv, d), rand(b, n, skv, d)
    pse = rand(1, n, sq, skv)
    masked = rng.random((b, 1, 1, skv)) < 0.4
    masked[0, 0, 0, :] = True
    want = attention_ref(q, k, v, 0.5, add=pse, masked=masked)
    y = aclnn.tensor(np.zeros((b, n, sq, d), np.float32))
    assert fias(aclnn.tensor(q), aclnn.tensor(k), aclnn.tensor(v), y, n, 0.5, "BNSD",
                pse=aclnn.tensor(pse), mask=aclnn.tensor(masked)) == 0, aclnn.err_msg()
    close(y.numpy(), want, TOL[np.float32])


def test_fias_bf16(device):
    b, n, sq, skv, d = 1, 2, 3, 50, 16
    qb, q = to_bf16(rand(b, n, sq, d))
    kb, k = to_bf16(rand(b, n, skv, d))
    vb, v = to_bf16(rand(b, n, skv, d))
    want = attention_ref(q, k, v, 0.25)
    t = lambda bits: aclnn.tensor(bits, acl_type=aclnn.ACL_BF16)     # noqa: E731
    y = aclnn.tensor(np.zeros((b, n, sq, d), np.uint16), acl_type=aclnn.ACL_BF16)
    assert fias(t(qb), t(kb), t(vb), y, n, 0.25, "BNSD") == 0, aclnn.err_msg()
    close(from_bf16(y.numpy()), want, TOL["bf16"])


@pytest.mark.parametrize("sq", [1, 100])
def test_fias_long_sequence_of_4096_keys(device, sq):
    """Decoding one token and a prefill of 100 over 4096 keys: many blocks of
    keys, so the running maximum and sum are rescaled many times; scores
    spread widely so that a late key can dominate."""
    b, n, nkv, skv, d = 1, 4, 1, 4096, 64
    q, k, v = rand(b, n, sq, d, dtype=np.float16), rand(b, nkv, skv, d, dtype=np.float16), \
        rand(b, nkv, skv, d, dtype=np.float16)
    k[0, 0, 4000] *= 4
    want = attention_ref(q, k, v, 0.5)
    y = aclnn.tensor(np.zeros((b, sq, n, d), np.float16))
    assert fias(aclnn.tensor(bsnd(q)), aclnn.tensor(bsnd(k)), aclnn.tensor(bsnd(v)), y, n, 0.5,
                "BSND", kv_heads=nkv) == 0, aclnn.err_msg()
    close(y.numpy(), bsnd(want), TOL[np.float16])


def test_fias_refuses_what_the_card_cannot_honour(device):
    b, n, s, d = 1, 4, 4, 8
    q, k = aclnn.tensor(rand(b, n, s, d)), aclnn.tensor(rand(b, n, s, d))
    y = aclnn.tensor(np.zeros((b, n, s, d), np.float32))
    scale = aclnn.tensor(np.ones(1, np.float32))
    cases = [
        (dict(lse=True), ["softmaxLseFlag"]),
        (dict(sparse=2), ["sparseMode 2"]),
        (dict(extra=(7, scale)), ["blockTable"]),
        (dict(extra=(0, scale)), ["deqScale1"]),
        (dict(pre=0), ["preTokens 0"]),
        (dict(kv_heads=3), ["numKeyValueHeads 3"]),
        (dict(seq=aclnn.int_array([2])), ["actualSeqLengths[0] is 2"]),
        (dict(mask=aclnn.tensor(np.zeros((s, s + 1), np.bool_))), ["attenMask's dim 1"]),
    ]
    for kw, words in cases:
        assert fias(q, k, k, y, n, 1.0, "BNSD", **kw) == ACLNN_ERR_PARAM_INVALID, kw
        for w in words:
            assert w in aclnn.err_msg(), (kw, aclnn.err_msg())
    assert fias(q, k, k, y, 3, 1.0, "BNSD") == ACLNN_ERR_PARAM_INVALID
    assert "numHeads 3" in aclnn.err_msg()
    assert fias(q, k, k, y, n, 1.0, "TND") == ACLNN_ERR_PARAM_INVALID
    assert "inputLayout" in aclnn.err_msg()
    h16 = aclnn.tensor(rand(b, n, s, d, dtype=np.float16))
    assert fias(h16, k, k, y, n, 1.0, "BNSD") == ACLNN_ERR_PARAM_INVALID
    assert "the same type" in aclnn.err_msg()


# ---- RotaryPositionEmbedding ----------------------------------------------------

def rope_ref(x, cos, sin, mode):
    x = x.astype(np.float64)
    h = x.shape[-1] // 2
    if mode == 0:
        rot = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    else:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
    return x * cos.astype(np.float64) + rot * sin.astype(np.float64)


def rope_tables(s, d, mode, dtype):
    """cos and sin (1, S, 1, D) of ggml's angles, in each mode's layout."""
    theta = np.arange(s)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    rep = (lambda a: np.concatenate([a, a], -1)) if mode == 0 else \
        (lambda a: np.repeat(a, 2, -1))
    return (rep(np.cos(theta))[None, :, None].astype(dtype),
            rep(np.sin(theta))[None, :, None].astype(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("mode", [0, 1])
def test_rope_bsnd_with_tables_broadcast(device, dtype, mode):
    b, s, n, d = 2, 7, 3, 16
    x = rand(b, s, n, d, dtype=dtype)
    cos, sin = rope_tables(s, d, mode, dtype)
    y = aclnn.tensor(np.zeros_like(x))
    run_ok("RotaryPositionEmbedding", aclnn.tensor(x), aclnn.tensor(cos), aclnn.tensor(sin),
           mode, y)
    close(y.numpy(), rope_ref(x, cos, sin, mode), TOL[dtype] * 2)


def test_rope_in_place_on_a_strided_view(device):
    b, s, n, d = 1, 5, 2, 8
    x = rand(b, s, n, d)
    cos, sin = rope_tables(s, d, 1, np.float32)
    t = aclnn.tensor(x, strides=[s * n * (d + 4), n * (d + 4), d + 4, 1], filler=7)
    run_ok("RotaryPositionEmbedding", t, aclnn.tensor(cos), aclnn.tensor(sin), 1, t)
    close(t.numpy(), rope_ref(x, cos, sin, 1), TOL[np.float32])
    # the gaps between rows are untouched (the last row has none after it)
    rows = np.pad(t.storage(), (0, 4), constant_values=7).reshape(-1, d + 4)
    assert (rows[:, d:] == 7).all()


def test_rope_errors(device):
    x = aclnn.tensor(rand(1, 2, 1, 6))
    cos, sin = rope_tables(2, 6, 0, np.float32)
    c, s = aclnn.tensor(cos), aclnn.tensor(sin)
    y = aclnn.tensor(np.zeros((1, 2, 1, 6), np.float32))
    run_fails("RotaryPositionEmbedding", ACLNN_ERR_PARAM_INVALID, ["mode 2"], x, c, s, 2, y)
    odd = aclnn.tensor(rand(1, 2, 1, 5))
    run_fails("RotaryPositionEmbedding", ACLNN_ERR_PARAM_INVALID, ["odd"], odd, c, s, 0,
              aclnn.tensor(np.zeros((1, 2, 1, 5), np.float32)))
    wrong = aclnn.tensor(np.zeros((1, 3, 1, 6), np.float32))
    run_fails("RotaryPositionEmbedding", ACLNN_ERR_PARAM_INVALID, ["cos", "broadcast"], x,
              wrong, s, 0, y)
    half = aclnn.tensor(np.zeros((1, 2, 1, 6), np.float16))
    run_fails("RotaryPositionEmbedding", ACLNN_ERR_PARAM_INVALID, ["the same type"], x, c, s,
              0, half)
