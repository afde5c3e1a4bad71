//! ARC steps make zero heap allocations: request, issue, finalize, present and verify, for v2 at
//! limits 2, 100, 2^16 and 2^32 - 1, and for the legacy v1 suites.
//!
//! Counts are printed: `cargo test --release --test arc_alloc -- --nocapture`.

use allocation_counter::measure;
use privacy_tokens::arc::{
    ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, ClearNonceSuite, CredentialRequest, ServerPrivateKey,
};
use rand::rngs::StdRng;
use rand::SeedableRng;

const REQ_CTX: &[u8] = b"alloc request context";
const PRES_CTX: &[u8] = b"alloc presentation context";

fn allocs<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let mut out = None;
    let info = measure(|| out = Some(f()));
    (info.count_total, out.expect("closure ran"))
}

#[test]
fn v2_steps_do_not_allocate() {
    let mut rng = StdRng::seed_from_u64(7);
    let server = ServerPrivateKey::<ArcV2P256>::random(&mut rng);
    for limit in [2u32, 100, 1 << 16, u32::MAX] {
        let (a_req, req) = allocs(|| CredentialRequest::<ArcV2P256>::new(REQ_CTX, &mut rng));
        let req = req.expect("request");
        let (a_issue, resp) = allocs(|| server.issue(&req.message, &mut rng));
        let resp = resp.expect("issue");
        let pk = *server.public_key();
        let (a_fin, cred) = allocs(|| req.state.finalize(&pk, &resp));
        let mut cred = cred.expect("finalize");
        let mut state = cred.presentation_state(PRES_CTX, limit).expect("state");
        let (a_present, p) = allocs(|| state.present(&mut rng));
        let p = p.expect("present");
        let (a_verify, tag) = allocs(|| server.verify_presentation(REQ_CTX, PRES_CTX, &p, limit));
        tag.expect("verify");
        println!(
            "{} limit {limit}: request {a_req}, issue {a_issue}, finalize {a_fin}, present {a_present}, verify {a_verify}",
            ArcV2P256::NAME
        );
        assert_eq!(
            [a_req, a_issue, a_fin, a_present, a_verify],
            [0; 5],
            "limit {limit}"
        );
    }
}

fn legacy<S: ClearNonceSuite>() {
    let mut rng = StdRng::seed_from_u64(8);
    let server = ServerPrivateKey::<S>::random(&mut rng);
    let (a_req, req) = allocs(|| CredentialRequest::<S>::new(REQ_CTX, &mut rng));
    let req = req.expect("request");
    let (a_issue, resp) = allocs(|| server.issue(&req.message, &mut rng));
    let resp = resp.expect("issue");
    let pk = *server.public_key();
    let (a_fin, cred) = allocs(|| req.state.finalize(&pk, &resp));
    let mut cred = cred.expect("finalize");
    let mut state = cred
        .legacy_presentation_state(PRES_CTX, 100, &mut rand::rng())
        .expect("state");
    let (a_present, p) = allocs(|| state.present(&mut rng));
    let (p, nonce) = p.expect("present");
    let (a_verify, tag) =
        allocs(|| server.verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, nonce, 100));
    tag.expect("verify");
    println!(
        "{}: request {a_req}, issue {a_issue}, finalize {a_fin}, present {a_present}, verify {a_verify}",
        S::NAME
    );
    assert_eq!([a_req, a_issue, a_fin, a_present, a_verify], [0; 5]);
}

#[test]
fn v1_steps_do_not_allocate() {
    legacy::<ArcV1P256>();
    legacy::<ArcV1P384>();
}
