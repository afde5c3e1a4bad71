"""Published vectors through the shared library (Python ctypes, standard library only):

- RFC 9497 Appendix A (test-vectors/rfc9497-voprf.json, all 15 suite/mode sets): the server
  key from DeriveKeyPair(seed, keyInfo) is skSm (and its public key pkSm), BlindEvaluate of
  each BlindedElement is the EvaluationElement (batched for the batch-2 vectors), and Evaluate
  of each Input is the Output;
- BoringSSL's Trust Tokens (test-vectors/trust-token-boringssl-pst-v1.json, pst_v1_voprf and
  pst_v1_pmb): derive_key_from_secret gives the recorded private and public blobs, and the
  issuer redeems every recorded request to the recorded key id, private bit, nonce and client
  data.

Environment: PRIVACY_TOKENS_LIB; PT_VECTORS_CONTROL=1 alters one expected value (the run must
then report 1 failed). Prints "ok - ..." per vector set and "N passed, M failed".
"""

import ctypes
import json
import os
import sys

from ptlib import Buffer, BufferList, Runner, Slice, call, free, lib, out_bytes, take_list

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "..", "test-vectors")

SUITES = {"P256-SHA256": 1, "P384-SHA384": 2, "P521-SHA512": 3, "ristretto255-SHA512": 4,
          "decaf448-SHAKE256": 5}
METHODS = {"pst_v1_voprf": 1, "pst_v1_pmb": 2}


def slices(items):
    arr = (Slice * len(items))()
    for i, b in enumerate(items):
        arr[i].data, arr[i].len = b, len(b)
    return arr


MODE = {0: "oprf", 1: "voprf", 2: "poprf"}


def rfc9497(entry):
    mode = MODE[entry["mode"]]
    suite = SUITES[entry["identifier"]]
    seed, info = bytes.fromhex(entry["seed"]), bytes.fromhex(entry["keyInfo"])
    server = ctypes.c_void_p()
    call(f"pt_{mode}_server_derive", suite, seed, len(seed), info, len(info), ctypes.byref(server))
    try:
        assert out_bytes(f"pt_{mode}_server_secret_key", server).hex() == entry["skSm"]
        if mode != "oprf":
            assert out_bytes(f"pt_{mode}_server_public_key", server).hex() == entry["pkSm"]
        for v in entry["vectors"]:
            inputs = [bytes.fromhex(x) for x in v["Input"].split(",")]
            blinded = [bytes.fromhex(x) for x in v["BlindedElement"].split(",")]
            expected_ev = v["EvaluationElement"].split(",")
            outputs = v["Output"].split(",")
            pinfo = bytes.fromhex(v.get("Info", ""))
            extra = (pinfo, len(pinfo)) if mode == "poprf" else ()
            p = Buffer()
            proof = (ctypes.byref(p),) if mode != "oprf" else ()
            if v["Batch"] == 1:
                ev = Buffer()
                call(f"pt_{mode}_server_blind_evaluate", server, blinded[0], len(blinded[0]),
                     *extra, ctypes.byref(ev), *proof)
                got = [ctypes.string_at(ev.data, ev.len)]
                lib.pt_buffer_free(ctypes.byref(ev))
            else:
                lst = BufferList()
                call(f"pt_{mode}_server_blind_evaluate_batch", server, slices(blinded),
                     len(blinded), *extra, ctypes.byref(lst), *proof)
                got = take_list(lst)
            if mode != "oprf":
                assert p.len == 2 * len(entry["skSm"]) // 2, p.len
            lib.pt_buffer_free(ctypes.byref(p))
            assert [g.hex() for g in got] == expected_ev, (got, expected_ev)
            for i, o in zip(inputs, outputs):
                assert out_bytes(f"pt_{mode}_server_evaluate", server, i, len(i), *extra).hex() == o
    finally:
        free(f"pt_{mode}_server_free", server)


def trust_token(name, m):
    method = METHODS[name]
    key = m["key"]
    secret = bytes.fromhex(key["secret"])
    sk, pk = Buffer(), Buffer()
    call("pt_trust_token_derive_key_from_secret", method, key["key_id"], secret, len(secret),
         ctypes.byref(sk), ctypes.byref(pk))
    priv = ctypes.string_at(sk.data, sk.len)
    pub = ctypes.string_at(pk.data, pk.len)
    lib.pt_buffer_free(ctypes.byref(sk))
    lib.pt_buffer_free(ctypes.byref(pk))
    assert priv.hex() == key["priv"] and pub.hex() == key["pub"]
    issuer = ctypes.c_void_p()
    call("pt_trust_token_issuer_new", method, 10, ctypes.byref(issuer))
    try:
        call("pt_trust_token_issuer_add_key", issuer, priv, len(priv))
        redeemed = 0
        for t in m["transcripts"].values():
            for req, nonce, data in zip(t["redeem_requests"], t["redeem_nonces"],
                                        t["client_data"]):
                r = bytes.fromhex(req)
                kid, bit = ctypes.c_uint32(), ctypes.c_bool()
                n, d = Buffer(), Buffer()
                call("pt_trust_token_issuer_redeem", issuer, r, len(r), ctypes.byref(kid),
                     ctypes.byref(bit), ctypes.byref(n), ctypes.byref(d))
                got = (kid.value, int(bit.value), ctypes.string_at(n.data, n.len).hex(),
                       ctypes.string_at(d.data, d.len).hex())
                lib.pt_buffer_free(ctypes.byref(n))
                lib.pt_buffer_free(ctypes.byref(d))
                want = (t["public_metadata_key_id"], t["private_metadata"], nonce, data)
                assert got == want, (got, want)
                redeemed += 1
        assert redeemed > 0
    finally:
        free("pt_trust_token_issuer_free", issuer)


def main():
    run = Runner()
    with open(os.path.join(VECTORS, "rfc9497-voprf.json")) as f:
        sets = json.load(f)
    assert len(sets) == 15
    if os.environ.get("PT_VECTORS_CONTROL"):
        # Control (test.sh): one wrong expected Output must fail exactly one vector set.
        v = sets[0]["vectors"][0]
        v["Output"] = ("1" if v["Output"][0] == "0" else "0") + v["Output"][1:]
    for e in sets:
        run.test(f"RFC 9497 {e['identifier']} mode {e['mode']}: derive, BlindEvaluate, Evaluate",
                 rfc9497, e)
    with open(os.path.join(VECTORS, "trust-token-boringssl-pst-v1.json")) as f:
        tt = json.load(f)["methods"]
    for name in METHODS:
        run.test(f"BoringSSL {name}: derive_key_from_secret blobs, every recorded redemption",
                 trust_token, name, tt[name])
    return run.summary()


if __name__ == "__main__":
    sys.exit(main())
