//! The wiping claims of this layer, tested (review BND-1, BND-2, BND-7): what a call through
//! the C ABI leaves behind in freed heap blocks and on the stale stack below the caller.
//!
//! - Freed heap: a global allocator (`tests/support/inspecting_alloc.rs`) scans every block
//!   freed while it is armed for the bytes of a bearer token (its authenticator, its nonce, its
//!   first 48 bytes). The scenarios run a full client and origin flow through the C functions
//!   (request, issue, finalize, decode, re-encode, `Authorization` header both ways, verify,
//!   free) twice with the same fixed seed: once unarmed to learn the token, once armed.
//! - Stale stack (`tests/support/secret_scan.rs`): each randomized call runs with a fixed seed
//!   for its per-call generator ([`crate::ffi::test_seed`]), so the test knows every byte the
//!   generator produced (the blinds, token nonces and proof nonces, drawn verbatim) and looks
//!   for the seed and for that key stream in the stack below the caller once the call returns.
//!   Optimised builds only.
//!
//! Each test first checks that its scanner sees an unwiped copy. The feature
//! `control-no-wipe` (this layer's wipes disabled: the binding's stack wipe, the zeroizing
//! generator, the token wipes) makes both tests fail; `test.sh` runs them so and requires that.
//! In that build the stack scan finds the seed or key stream after 4 of its 7 calls
//! (`pt_create_token_request`, `pt_privacy_pass_issuer_issue`, `pt_arc_issuer_issue`,
//! `pt_voprf_server_blind_evaluate`), and the heap scan the Privacy Pass token. On the code
//! before the fix (rand's `StdRng`, no binding-level wipe) the stack scan found the seed and
//! most of the first 256 bytes of key stream after each of the first five calls, and the heap
//! scan 10 freed blocks holding the Privacy Pass token and 2 the ARC token.
//!
//! Both scans run in one test each; nothing else in this binary arms the scanner.

#[path = "../../../tests/support/inspecting_alloc.rs"]
mod inspecting_alloc;
#[path = "../../../tests/support/secret_scan.rs"]
mod secret_scan;

use core::ffi::c_char;
use core::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use inspecting_alloc::Inspecting;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use secret_scan::{assert_scan_sees_stale_stack, paint, StaleStack};
use std::alloc::{GlobalAlloc, Layout};

use crate::act::*;
use crate::arc::*;
use crate::challenge::*;
use crate::ffi::*;
use crate::oprf::*;
use crate::privacy_pass::*;

// ---------------------------------------------------------------------------------------------
// The freed-heap scanner

const NEEDLE_LEN: usize = 48;
const MIN_NEEDLE_LEN: usize = 32;
const MAX_NEEDLES: usize = 8;

struct Needles {
    len: usize,
    lens: [usize; MAX_NEEDLES],
    bytes: [[u8; NEEDLE_LEN]; MAX_NEEDLES],
}

static NEEDLES: Mutex<Needles> = Mutex::new(Needles {
    len: 0,
    lens: [0; MAX_NEEDLES],
    bytes: [[0; NEEDLE_LEN]; MAX_NEEDLES],
});
static ARMED: AtomicBool = AtomicBool::new(false);
static HITS: AtomicUsize = AtomicUsize::new(0);
/// The first hits, as `needle index << 32 | block size` (for the failure message).
static HIT_LOG: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];

/// The test allocator: [`Inspecting`] (freed blocks scanned for needles) plus, on a thread
/// that asks for it, a check that every block is freed with the size it was allocated with.
struct Checking(Inspecting);

std::thread_local! {
    static WATCHING: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}
const WATCH_SLOTS: usize = 64;
/// `(address, size)` of the blocks allocated on the watching thread.
static WATCHED: [(AtomicUsize, AtomicUsize); WATCH_SLOTS] =
    [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; WATCH_SLOTS];
static WATCH_NEXT: AtomicUsize = AtomicUsize::new(0);
static WATCH_ERRORS: AtomicUsize = AtomicUsize::new(0);

fn watching() -> bool {
    WATCHING.try_with(core::cell::Cell::get).unwrap_or(false)
}

// SAFETY: every call is forwarded unchanged to `Inspecting` (itself `System`); the bookkeeping
// only touches atomics and a `const`-initialized thread-local, and never allocates.
unsafe impl GlobalAlloc for Checking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { self.0.alloc(layout) };
        if watching() {
            let i = WATCH_NEXT.fetch_add(1, Ordering::SeqCst) % WATCH_SLOTS;
            WATCHED[i].0.store(p as usize, Ordering::SeqCst);
            WATCHED[i].1.store(layout.size(), Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if watching() {
            for (a, size) in &WATCHED {
                if a.load(Ordering::SeqCst) == ptr as usize {
                    if size.load(Ordering::SeqCst) != layout.size() {
                        WATCH_ERRORS.fetch_add(1, Ordering::SeqCst);
                    }
                    a.store(0, Ordering::SeqCst);
                }
            }
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { self.0.dealloc(ptr, layout) }
    }
}

/// Runs `f` with this thread's allocations watched: how many blocks were freed with another
/// size than they were allocated with.
fn freed_with_wrong_size(f: impl FnOnce()) -> usize {
    WATCH_ERRORS.store(0, Ordering::SeqCst);
    WATCHING.with(|w| w.set(true));
    f();
    WATCHING.with(|w| w.set(false));
    WATCH_ERRORS.load(Ordering::SeqCst)
}

/// Scans each freed block for the needles while armed. It waits for the lock (a `try_lock` would
/// skip blocks freed while another thread's block is being scanned); holding it cannot
/// re-enter the allocator: the scan never allocates.
#[global_allocator]
static GLOBAL: Checking = Checking(Inspecting {
    armed: |size| ARMED.load(Ordering::SeqCst) && size >= MIN_NEEDLE_LEN,
    inspect: |block| {
        if let Ok(n) = NEEDLES.lock() {
            for (i, (needle, &len)) in n.bytes[..n.len].iter().zip(&n.lens).enumerate() {
                if block.windows(len).any(|w| w == &needle[..len]) {
                    let h = HITS.fetch_add(1, Ordering::SeqCst);
                    if let Some(slot) = HIT_LOG.get(h) {
                        slot.store((i << 32) | block.len(), Ordering::SeqCst);
                    }
                }
            }
        }
    },
});

/// Review BND-11: a caller that trims a buffer's `len` or a list's `count` (to drop a trailing
/// byte, say) does not make the free use another layout than the allocation's.
#[test]
fn a_trimmed_buffer_or_list_is_freed_with_its_allocated_size() {
    // Control: the check sees a block freed with the wrong size.
    let layout = Layout::from_size_align(16, 1).expect("layout");
    let errors = freed_with_wrong_size(|| {
        // The control of the check: `System` (malloc/free) ignores the size.
        // SAFETY: a 16-byte block freed once, as 15 bytes: harmless under `System` (above).
        unsafe {
            std::alloc::dealloc(
                black_box(std::alloc::alloc(layout)),
                Layout::from_size_align_unchecked(15, 1),
            )
        }
    });
    assert_eq!(errors, 1, "the check does not see a wrong size");

    let errors = freed_with_wrong_size(|| {
        let mut b = pt_buffer::empty();
        // SAFETY: readable input, a buffer output.
        let s = unsafe { pt_base64url_encode(b"abcdef".as_ptr(), 6, &mut b) };
        ok(s, "encode");
        b.len -= 1;
        // SAFETY: a buffer the library filled (its `len` changed, which is allowed).
        unsafe { pt_buffer_free(&mut b) };
        let mut l = pt_buffer_list::new([b"ab", b"cd", b"ef"]);
        l.count -= 1;
        // SAFETY: a list the library filled (its `count` changed, which is allowed).
        unsafe { pt_buffer_list_free(&mut l) };
    });
    assert_eq!(
        errors, 0,
        "a trimmed buffer or list was freed with the wrong size"
    );
}

/// The base64url text of `bytes[..36]` (48 characters), as an `Authorization` header carries a
/// token that starts there.
fn base64_needle(bytes: &[u8]) -> [u8; 48] {
    let mut out = [0u8; 48];
    out.copy_from_slice(privacy_tokens::http::base64url_encode(&bytes[..36]).as_bytes());
    out
}

/// Runs `f` with the scanner armed for `needles` (32 to 48 bytes each) and returns how many
/// freed blocks held one.
fn freed_blocks_holding<T>(needles: &[&[u8]], f: impl FnOnce() -> T) -> (usize, T) {
    assert!(needles.len() <= MAX_NEEDLES);
    {
        let mut n = NEEDLES.lock().expect("lock");
        for (i, needle) in needles.iter().enumerate() {
            assert!((MIN_NEEDLE_LEN..=NEEDLE_LEN).contains(&needle.len()));
            n.bytes[i][..needle.len()].copy_from_slice(needle);
            n.lens[i] = needle.len();
        }
        n.len = needles.len();
    }
    HITS.store(0, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    let out = f();
    ARMED.store(false, Ordering::SeqCst);
    (HITS.load(Ordering::SeqCst), out)
}

/// The first hits of the last scan: (needle index, freed block size).
fn hit_log() -> Vec<(usize, usize)> {
    let n = HITS.load(Ordering::SeqCst).min(HIT_LOG.len());
    HIT_LOG[..n]
        .iter()
        .map(|h| {
            let h = h.load(Ordering::SeqCst);
            (h >> 32, h & 0xffff_ffff)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Calls through the C ABI

fn ok(s: pt_status, what: &str) {
    assert_eq!(s, PT_OK, "{what}");
}

const SEED_CLIENT: [u8; 32] = [0x11; 32];
const SEED_ISSUER: [u8; 32] = [0x22; 32];

/// A Privacy Pass issuer of `token_type` with a derived key.
fn pp_issuer(token_type: u16) -> *mut pt_privacy_pass_issuer {
    let mut i = core::ptr::null_mut();
    let (seed, info) = (b"seed".as_ptr(), b"".as_ptr());
    // SAFETY: two readable byte strings and a handle output.
    let s = unsafe { pt_privacy_pass_issuer_derive(token_type, seed, 4, info, 0, &mut i) };
    ok(s, "derive");
    i
}

/// A challenge of `token_type` for issuer.example with `key` as its token-key.
fn challenge(token_type: u16, key: &pt_buffer) -> *mut pt_challenge {
    let mut c = core::ptr::null_mut();
    let name = "issuer.example";
    let ctx = [0x2au8; 32];
    // SAFETY: readable inputs and a handle output; `key` is a buffer the library filled.
    unsafe {
        ok(
            pt_challenge_create(
                token_type,
                name.as_ptr().cast::<c_char>(),
                name.len(),
                ctx.as_ptr(),
                32,
                "origin.example".as_ptr().cast::<c_char>(),
                14,
                core::ptr::null(),
                0,
                &mut c,
            ),
            "challenge",
        );
        ok(pt_challenge_set_token_key(c, key.data, key.len), "set key");
    }
    c
}

/// A Privacy Pass type 1 token's length.
const TOKEN1_LEN: usize = 2 + 32 + 32 + 32 + 48;

/// The whole client and origin flow of one type 1 token with the fixed seeds; frees everything
/// it made and returns the token.
#[inline(never)]
fn pp_flow(issuer: *const pt_privacy_pass_issuer, c: *const pt_challenge) -> [u8; TOKEN1_LEN] {
    let mut token = [0u8; TOKEN1_LEN];
    let (mut body, mut resp, mut chal) =
        (pt_buffer::empty(), pt_buffer::empty(), pt_buffer::empty());
    let (mut b2, mut h1, mut h2, mut parsed, mut nonce, mut vn) = (
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
    );
    let mut tokens = pt_buffer_list::empty();
    let (mut ct, mut rct) = (core::ptr::null(), core::ptr::null());
    let mut st = core::ptr::null_mut();
    let mut t = core::ptr::null_mut();
    let mut valid = false;
    // SAFETY: live handles, buffers the library filled, outputs to locals.
    unsafe {
        test_seed::set(Some(SEED_CLIENT));
        ok(
            pt_create_token_request(c, core::ptr::null(), 0, 0, &mut body, &mut ct, &mut st),
            "request",
        );
        test_seed::set(Some(SEED_ISSUER));
        ok(
            pt_privacy_pass_issuer_issue(
                issuer,
                body.data,
                body.len,
                core::ptr::null(),
                0,
                &mut resp,
                &mut rct,
            ),
            "issue",
        );
        test_seed::set(None);
        ok(
            pt_token_request_state_finalize(st, resp.data, resp.len, &mut tokens),
            "finalize",
        );
        let item = &*tokens.items;
        assert_eq!(item.len, TOKEN1_LEN);
        token.copy_from_slice(core::slice::from_raw_parts(item.data, item.len));
        ok(
            pt_token_from_bytes(item.data, item.len, &mut t),
            "from_bytes",
        );
        ok(pt_token_to_bytes(t, &mut b2), "to_bytes");
        ok(pt_token_authorization_header(t, &mut h1), "token header");
        ok(pt_token_nonce(t, &mut nonce), "nonce");
        ok(
            pt_authorization_header(item.data, item.len, &mut h2),
            "header",
        );
        ok(
            pt_parse_authorization(h2.data.cast::<c_char>(), h2.len, &mut parsed),
            "parse",
        );
        ok(pt_challenge_to_bytes(c, &mut chal), "challenge bytes");
        ok(
            pt_privacy_pass_issuer_verify_token(
                issuer,
                parsed.data,
                parsed.len,
                chal.data,
                chal.len,
                &mut valid,
                &mut vn,
            ),
            "verify",
        );
        assert!(valid);
        pt_token_free(t);
        pt_token_request_state_free(st);
        pt_buffer_list_free(&mut tokens);
        for b in [
            &mut body,
            &mut resp,
            &mut chal,
            &mut b2,
            &mut h1,
            &mut h2,
            &mut parsed,
            &mut nonce,
            &mut vn,
        ] {
            pt_buffer_free(b);
        }
    }
    token
}

/// An ARC issuer with a key from the fixed seed.
fn arc_issuer() -> *mut pt_arc_issuer {
    let mut i = core::ptr::null_mut();
    test_seed::set(Some(SEED_ISSUER));
    // SAFETY: a handle output.
    ok(unsafe { pt_arc_issuer_generate(&mut i) }, "arc issuer");
    test_seed::set(None);
    i
}

/// A credential for `c` from `issuer`, serialized.
fn arc_credential_bytes(issuer: *const pt_arc_issuer, c: *const pt_challenge) -> pt_buffer {
    let (mut body, mut resp, mut out) =
        (pt_buffer::empty(), pt_buffer::empty(), pt_buffer::empty());
    let (mut ct, mut rct) = (core::ptr::null(), core::ptr::null());
    let (mut st, mut cred) = (core::ptr::null_mut(), core::ptr::null_mut());
    // SAFETY: live handles, buffers the library filled, outputs to locals.
    unsafe {
        ok(
            pt_create_credential_request(c, core::ptr::null(), 0, &mut body, &mut ct, &mut st),
            "credential request",
        );
        ok(
            pt_arc_issuer_issue(issuer, body.data, body.len, &mut resp, &mut rct),
            "arc issue",
        );
        ok(
            pt_credential_request_state_finalize(st, resp.data, resp.len, &mut cred),
            "credential",
        );
        ok(pt_credential_to_bytes(cred, &mut out), "credential bytes");
        pt_credential_free(cred);
        pt_credential_request_state_free(st);
        pt_buffer_free(&mut body);
        pt_buffer_free(&mut resp);
    }
    out
}

/// An ARC presentation from a credential restored from `cred` (so every run starts from the
/// same counters), with the client seed, verified by `issuer`; everything freed.
#[inline(never)]
fn arc_flow(issuer: *const pt_arc_issuer, c: *const pt_challenge, cred: &pt_buffer) -> Vec<u8> {
    let (mut tok, mut tag, mut h) = (pt_buffer::empty(), pt_buffer::empty(), pt_buffer::empty());
    let mut cr = core::ptr::null_mut();
    let mut t = core::ptr::null_mut();
    let mut out = Vec::with_capacity(4096);
    // SAFETY: live handles, buffers the library filled, outputs to locals.
    unsafe {
        ok(
            pt_credential_from_bytes(cred.data, cred.len, &mut cr),
            "from bytes",
        );
        test_seed::set(Some(SEED_CLIENT));
        ok(
            pt_credential_present(cr, c, core::ptr::null(), 0, 0, &mut tok),
            "present",
        );
        test_seed::set(None);
        out.extend_from_slice(core::slice::from_raw_parts(tok.data, tok.len));
        ok(pt_token_from_bytes(tok.data, tok.len, &mut t), "arc token");
        ok(pt_token_authorization_header(t, &mut h), "arc header");
        ok(
            pt_arc_issuer_verify(issuer, tok.data, tok.len, c, 0, &mut tag),
            "verify",
        );
        pt_token_free(t);
        pt_credential_free(cr);
        pt_buffer_free(&mut tok);
        pt_buffer_free(&mut tag);
        pt_buffer_free(&mut h);
    }
    out
}

#[test]
fn bearer_tokens_leave_no_copy_in_freed_heap() {
    // Control: the scanner sees a token in a freed, unwiped buffer.
    let needle = [0x5au8; 48];
    let (hits, ()) = freed_blocks_holding(&[&needle], || drop(black_box(needle.to_vec())));
    assert!(hits >= 1, "the scanner does not see an unwiped copy");

    // Privacy Pass type 1: the token's authenticator, nonce and first 48 bytes.
    let issuer = pp_issuer(PT_TOKEN_TYPE_1);
    let mut key = pt_buffer::empty();
    // SAFETY: a live issuer, a buffer output.
    let s = unsafe { pt_privacy_pass_issuer_token_key(issuer, &mut key) };
    ok(s, "key");
    let c = challenge(PT_TOKEN_TYPE_1, &key);
    let token = pp_flow(issuer, c);
    let b64 = base64_needle(&token);
    let needles: [&[u8]; 4] = [&token[TOKEN1_LEN - 48..], &token[2..34], &token[..48], &b64];
    let (hits, again) = freed_blocks_holding(&needles, || pp_flow(issuer, c));
    assert_eq!(again, token, "the fixed seed gives the same token");
    let mut leaks = Vec::new();
    if hits != 0 {
        leaks.push(format!(
            "Privacy Pass type 1 flow: {hits} freed blocks held the token \
             (needle index, block size: {:?})",
            hit_log()
        ));
    }

    // ARC: the token's first and last 48 bytes.
    let ai = arc_issuer();
    let mut akey = pt_buffer::empty();
    // SAFETY: a live issuer, a buffer output.
    ok(unsafe { pt_arc_issuer_token_key(ai, &mut akey) }, "arc key");
    let ac = challenge(PT_TOKEN_TYPE_ARC, &akey);
    // SAFETY: a live challenge.
    ok(unsafe { pt_challenge_set_rate_limit(ac, 4) }, "rate limit");
    let mut cred = arc_credential_bytes(ai, ac);
    let token = arc_flow(ai, ac, &cred);
    let n = token.len();
    let b64 = base64_needle(&token);
    let needles: [&[u8]; 3] = [&token[n - 48..], &token[..48], &b64];
    let (hits, again) = freed_blocks_holding(&needles, || arc_flow(ai, ac, &cred));
    assert_eq!(again, token, "the fixed seed gives the same ARC token");
    if hits != 0 {
        leaks.push(format!(
            "ARC presentation flow: {hits} freed blocks held the token \
             (needle index, block size: {:?})",
            hit_log()
        ));
    }

    // SAFETY: live handles and buffers, freed once.
    unsafe {
        pt_buffer_free(&mut cred);
        pt_buffer_free(&mut key);
        pt_buffer_free(&mut akey);
        pt_challenge_free(c);
        pt_challenge_free(ac);
        pt_privacy_pass_issuer_free(issuer);
        pt_arc_issuer_free(ai);
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// The stale stack

/// The seed and the first 1024 bytes of its key stream: the 32-byte seed, the first 48 bytes
/// (the first draw: a P-384 proof nonce or blind, a token nonce and more), and each 32-byte
/// chunk.
fn stream_needles(seed: [u8; 32]) -> Vec<(String, Vec<u8>)> {
    let mut stream = vec![0u8; 1024];
    StdRng::from_seed(seed).fill_bytes(&mut stream);
    let mut n = vec![("seed".to_string(), seed.to_vec())];
    n.push(("stream[0..48]".to_string(), stream[..48].to_vec()));
    for (i, chunk) in stream.chunks_exact(32).enumerate() {
        n.push((
            format!("stream[{}..{}]", 32 * i, 32 * i + 32),
            chunk.to_vec(),
        ));
    }
    n
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stale-stack scan needs an optimised build"
)]
fn randomized_calls_leave_no_generator_output_on_the_stack() {
    // Seeds of their own: the heap test may run at the same time on another thread.
    const SEED_CLIENT: [u8; 32] = [0x33; 32];
    const SEED_ISSUER: [u8; 32] = [0x44; 32];
    assert_scan_sees_stale_stack();
    let mut leaks = Vec::new();
    let mut stale = StaleStack::new();
    let mut check = |stale: &StaleStack, what: &str, seed: [u8; 32]| {
        let needles = stream_needles(seed);
        let found = stale.found(&needles);
        println!("stale stack after {what}: {} found", found.len());
        if !found.is_empty() {
            leaks.push(format!("{what}: {found:?}"));
        }
    };

    // Privacy Pass type 1: the issuer's proof nonce, the client's nonce and blind.
    let issuer = pp_issuer(PT_TOKEN_TYPE_1);
    let mut key = pt_buffer::empty();
    // SAFETY: a live issuer, a buffer output.
    let s = unsafe { pt_privacy_pass_issuer_token_key(issuer, &mut key) };
    ok(s, "key");
    let c = challenge(PT_TOKEN_TYPE_1, &key);
    let (mut body, mut resp) = (pt_buffer::empty(), pt_buffer::empty());
    let (mut ct, mut rct) = (core::ptr::null(), core::ptr::null());
    let mut st = core::ptr::null_mut();

    test_seed::set(Some(SEED_CLIENT));
    paint();
    let no_key = core::ptr::null();
    // SAFETY: a live challenge, outputs to locals.
    let s = unsafe { pt_create_token_request(c, no_key, 0, 0, &mut body, &mut ct, &mut st) };
    stale.take();
    ok(s, "request");
    check(&stale, "pt_create_token_request", SEED_CLIENT);

    test_seed::set(Some(SEED_ISSUER));
    paint();
    // SAFETY: a live issuer, a library buffer, outputs to locals.
    let s = unsafe {
        pt_privacy_pass_issuer_issue(
            issuer,
            body.data,
            body.len,
            core::ptr::null(),
            0,
            &mut resp,
            &mut rct,
        )
    };
    stale.take();
    ok(s, "issue");
    check(&stale, "pt_privacy_pass_issuer_issue", SEED_ISSUER);

    // ARC: the issuer's proof nonces, the client's request secrets and presentation nonces.
    let ai = arc_issuer();
    let mut akey = pt_buffer::empty();
    // SAFETY: a live issuer, a buffer output.
    ok(unsafe { pt_arc_issuer_token_key(ai, &mut akey) }, "arc key");
    let ac = challenge(PT_TOKEN_TYPE_ARC, &akey);
    // SAFETY: a live challenge.
    ok(unsafe { pt_challenge_set_rate_limit(ac, 4) }, "rate limit");
    let (mut abody, mut aresp, mut tok) =
        (pt_buffer::empty(), pt_buffer::empty(), pt_buffer::empty());
    let (mut ast, mut cred) = (core::ptr::null_mut(), core::ptr::null_mut());

    test_seed::set(Some(SEED_CLIENT));
    paint();
    // SAFETY: a live challenge, outputs to locals.
    let s = unsafe {
        pt_create_credential_request(ac, core::ptr::null(), 0, &mut abody, &mut ct, &mut ast)
    };
    stale.take();
    ok(s, "credential request");
    check(&stale, "pt_create_credential_request", SEED_CLIENT);

    test_seed::set(Some(SEED_ISSUER));
    paint();
    // SAFETY: a live issuer, a library buffer, outputs to locals.
    let s = unsafe { pt_arc_issuer_issue(ai, abody.data, abody.len, &mut aresp, &mut rct) };
    stale.take();
    ok(s, "arc issue");
    check(&stale, "pt_arc_issuer_issue", SEED_ISSUER);

    let (aresp_data, aresp_len) = (aresp.data, aresp.len);
    // SAFETY: a live state, a library buffer, a handle output.
    let s = unsafe { pt_credential_request_state_finalize(ast, aresp_data, aresp_len, &mut cred) };
    ok(s, "credential");
    test_seed::set(Some(SEED_CLIENT));
    paint();
    // SAFETY: a live credential and challenge, a buffer output.
    let s = unsafe { pt_credential_present(cred, ac, core::ptr::null(), 0, 0, &mut tok) };
    stale.take();
    ok(s, "present");
    check(&stale, "pt_credential_present", SEED_CLIENT);

    // ACT: the client's request and spend secrets and proof nonces, the Moderator's signing
    // nonces (issuance and refund).
    let (mut am, mut actx, mut apk) = (
        core::ptr::null_mut(),
        core::ptr::null_mut(),
        pt_buffer::empty(),
    );
    // SAFETY: handle and buffer outputs, readable input.
    unsafe {
        ok(pt_act_moderator_generate(&mut am), "act moderator");
        ok(pt_act_moderator_public_key(am, &mut apk), "act key");
        ok(
            pt_act_context_new(b"ctx".as_ptr(), 3, 8, true, &mut actx),
            "act context",
        );
    }
    let (mut areq, mut aresp2, mut amsg, mut arefund) = (
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
    );
    let (mut aist, mut acred, mut asst, mut av) = (
        core::ptr::null_mut(),
        core::ptr::null_mut(),
        core::ptr::null_mut(),
        core::ptr::null_mut(),
    );
    test_seed::set(Some(SEED_CLIENT));
    paint();
    // SAFETY: outputs to locals.
    let s = unsafe { pt_act_issue_request(&mut areq, &mut aist) };
    stale.take();
    ok(s, "act request");
    check(&stale, "pt_act_issue_request", SEED_CLIENT);
    test_seed::set(Some(SEED_ISSUER));
    paint();
    // SAFETY: live handles, a library buffer, a buffer output.
    let s = unsafe { pt_act_moderator_issue(am, actx, 10, areq.data, areq.len, &mut aresp2) };
    stale.take();
    ok(s, "act issue");
    check(&stale, "pt_act_moderator_issue", SEED_ISSUER);
    // SAFETY: live handles, library buffers, a handle output.
    let s = unsafe {
        pt_act_issuance_state_finalize(
            aist,
            actx,
            apk.data,
            apk.len,
            aresp2.data,
            aresp2.len,
            &mut acred,
        )
    };
    ok(s, "act credential");
    test_seed::set(Some(SEED_CLIENT));
    paint();
    // SAFETY: live handles, readable input, outputs to locals.
    let s = unsafe {
        pt_act_credential_prove_spend(acred, actx, 3, 0, b"s".as_ptr(), 1, &mut amsg, &mut asst)
    };
    stale.take();
    ok(s, "act spend");
    check(&stale, "pt_act_credential_prove_spend", SEED_CLIENT);
    // SAFETY: live handles, a library buffer, readable input, a handle output.
    let s = unsafe {
        pt_act_moderator_verify_spend(am, actx, amsg.data, amsg.len, b"s".as_ptr(), 1, &mut av)
    };
    ok(s, "act verify");
    test_seed::set(Some(SEED_ISSUER));
    paint();
    // SAFETY: live handles, a buffer output.
    let s = unsafe { pt_act_moderator_issue_refund(am, actx, av, 1, &mut arefund) };
    stale.take();
    ok(s, "act refund");
    check(&stale, "pt_act_moderator_issue_refund", SEED_ISSUER);
    test_seed::set(None);
    // SAFETY: live handles and buffers, freed once.
    unsafe {
        for b in [&mut apk, &mut areq, &mut aresp2, &mut amsg, &mut arefund] {
            pt_buffer_free(b);
        }
        pt_act_verified_spend_free(av);
        pt_act_spend_state_free(asst);
        pt_act_credential_free(acred);
        pt_act_issuance_state_free(aist);
        pt_act_context_free(actx);
        pt_act_moderator_free(am);
    }

    // VOPRF (P-384): the client's blind, the server's proof nonce.
    let (mut vs, mut vc) = (core::ptr::null_mut(), core::ptr::null_mut());
    let (mut vpk, mut blinded, mut evaluated, mut proof) = (
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
        pt_buffer::empty(),
    );
    let mut vst = core::ptr::null_mut();
    // SAFETY: handle and buffer outputs, a buffer the library filled.
    unsafe {
        ok(
            pt_voprf_server_generate(PT_SUITE_P384_SHA384, &mut vs),
            "voprf server",
        );
        ok(pt_voprf_server_public_key(vs, &mut vpk), "voprf key");
        ok(
            pt_voprf_client_new(PT_SUITE_P384_SHA384, vpk.data, vpk.len, &mut vc),
            "voprf client",
        );
    }
    test_seed::set(Some(SEED_CLIENT));
    paint();
    // SAFETY: a live client, readable input, outputs to locals.
    let s = unsafe { pt_voprf_client_blind(vc, b"input".as_ptr(), 5, &mut blinded, &mut vst) };
    stale.take();
    ok(s, "voprf blind");
    check(&stale, "pt_voprf_client_blind", SEED_CLIENT);
    test_seed::set(Some(SEED_ISSUER));
    paint();
    // SAFETY: a live server, a library buffer, outputs to locals.
    let s = unsafe {
        pt_voprf_server_blind_evaluate(vs, blinded.data, blinded.len, &mut evaluated, &mut proof)
    };
    stale.take();
    ok(s, "voprf blind_evaluate");
    check(&stale, "pt_voprf_server_blind_evaluate", SEED_ISSUER);
    test_seed::set(None);
    // SAFETY: live handles and buffers, freed once.
    unsafe {
        for b in [&mut vpk, &mut blinded, &mut evaluated, &mut proof] {
            pt_buffer_free(b);
        }
        pt_voprf_client_state_free(vst);
        pt_voprf_client_free(vc);
        pt_voprf_server_free(vs);
    }

    // SAFETY: live handles and buffers, freed once.
    unsafe {
        for b in [
            &mut key, &mut body, &mut resp, &mut akey, &mut abody, &mut aresp, &mut tok,
        ] {
            pt_buffer_free(b);
        }
        pt_token_request_state_free(st);
        pt_credential_request_state_free(ast);
        pt_credential_free(cred);
        pt_challenge_free(c);
        pt_challenge_free(ac);
        pt_privacy_pass_issuer_free(issuer);
        pt_arc_issuer_free(ai);
    }
    assert!(leaks.is_empty(), "left on the stack:\n{}", leaks.join("\n"));
}
