//! The C ABI of `privacy-tokens`: Privacy Pass token types 0x0001 and 0x0005 (single and
//! amortized batches), the `PrivateToken` HTTP headers, ARC (0xE5AC), ACT (Anonymous Credit
//! Tokens), Trust Tokens (Private State Tokens) and the OPRF, VOPRF and POPRF of RFC 9497 on its five suites, for C, Swift,
//! Kotlin/Java (JNI), Go (cgo) and Python (ctypes). The header is `include/privacy_tokens.h`,
//! generated from this crate by `cbindgen`.
//!
//! The operations and their names follow the WebAssembly package (`bindings/wasm/`):
//! `createTokenRequest` is `pt_create_token_request`, `PrivacyPassIssuer.issue` is
//! `pt_privacy_pass_issuer_issue`, and so on. Conventions shared by every function
//! ([`ffi`]): a `pt_status` return, library-owned `pt_buffer` outputs, opaque handles freed
//! (and wiped) by their `_free`, no panic across the boundary.
//!
//! Everything here is a thin layer over the library's public API; `unsafe` is confined to
//! turning C pointers into Rust references, each block with its `SAFETY` note.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
// The C names (`pt_buffer`, `pt_challenge`, ...) are the exported type names.
#![allow(non_camel_case_types)]
// Every exported function shares one pointer contract, stated once at the top of the header
// (and in README.md) rather than in a `# Safety` section per function.
#![allow(clippy::missing_safety_doc)]

pub mod act;
pub mod arc;
pub mod blind_rsa;
pub mod challenge;
pub mod directory;
pub mod ffi;
pub mod oprf;
pub mod privacy_pass;
pub mod trust_token;
#[cfg(test)]
mod wipe_tests;

// Every handle type carries its tag (review BND-9).
ffi::handle_types!(
    act::pt_act_context,
    act::pt_act_issuance_state,
    act::pt_act_credential,
    act::pt_act_spend_state,
    act::pt_act_moderator,
    act::pt_act_verified_spend,
    act::pt_act_nullifier_store,
    privacy_pass::pt_token_request_state,
    arc::pt_credential_request_state,
    arc::pt_credential,
    trust_token::pt_trust_token_issuance_state,
    oprf::pt_oprf_client_state,
    oprf::pt_voprf_client_state,
    oprf::pt_poprf_client_state,
    challenge::pt_challenge,
    challenge::pt_challenge_list,
    directory::pt_issuer_directory,
    privacy_pass::pt_token,
    privacy_pass::pt_privacy_pass_issuer,
    blind_rsa::pt_blind_rsa_issuer,
    arc::pt_arc_issuer,
    trust_token::pt_trust_token_issuer,
    trust_token::pt_trust_token_client,
    oprf::pt_oprf_client,
    oprf::pt_voprf_client,
    oprf::pt_poprf_client,
    oprf::pt_oprf_server,
    oprf::pt_voprf_server,
    oprf::pt_poprf_server,
);

/// The thread-safety the header states, checked at compile time: every handle may move between
/// threads, and those documented as shareable through `const` pointers are `Sync`.
const _: () = {
    const fn send<T: Send>() {}
    const fn sync<T: Send + Sync>() {}
    send::<act::pt_act_issuance_state>();
    send::<act::pt_act_credential>();
    send::<act::pt_act_spend_state>();
    send::<act::pt_act_verified_spend>();
    sync::<act::pt_act_context>();
    sync::<act::pt_act_moderator>();
    sync::<act::pt_act_nullifier_store>();
    send::<privacy_pass::pt_token_request_state>();
    send::<arc::pt_credential_request_state>();
    send::<arc::pt_credential>();
    send::<trust_token::pt_trust_token_issuance_state>();
    send::<oprf::pt_oprf_client_state>();
    send::<oprf::pt_voprf_client_state>();
    send::<oprf::pt_poprf_client_state>();
    sync::<challenge::pt_challenge>();
    sync::<challenge::pt_challenge_list>();
    sync::<directory::pt_issuer_directory>();
    sync::<privacy_pass::pt_token>();
    sync::<privacy_pass::pt_privacy_pass_issuer>();
    sync::<blind_rsa::pt_blind_rsa_issuer>();
    sync::<arc::pt_arc_issuer>();
    sync::<trust_token::pt_trust_token_issuer>();
    sync::<trust_token::pt_trust_token_client>();
    sync::<oprf::pt_oprf_client>();
    sync::<oprf::pt_voprf_client>();
    sync::<oprf::pt_poprf_client>();
    sync::<oprf::pt_oprf_server>();
    sync::<oprf::pt_voprf_server>();
    sync::<oprf::pt_poprf_server>();
};
