//! The largest request each receiver accepts, measured: wall time and peak heap of handling it.
//!
//! ```text
//! cargo run --release --example limits            # the issuers' configured maxima
//! cargo run --release --example limits -- --full  # also a 65535-element VOPRF batch (~20 s)
//! ```
//!
//! Every limit is checked before any work (the tests `privacy_pass`, `voprf_limits`,
//! `trust_token_limits` and `arc_review` pin that); this measures what an accepted request at the
//! limit costs, so an operator can size workers (the second of two runs, so lazily built tables
//! are not counted). Peak heap is the largest amount of heap in use
//! at once while the request is handled (`allocation-counter`), over what was in use before.

use std::time::Instant;

use allocation_counter::measure;
use privacy_tokens::arc::{self, ArcV2P256};
use privacy_tokens::trust_token::{self, Method};
use privacy_tokens::voprf::privacy_pass::{self, TokenChallenge, DEFAULT_MAX_BATCH};
use privacy_tokens::voprf::{BlindedElement, VoprfClient, VoprfServer};
use privacy_tokens::P384Sha384;

/// Runs `f` once to warm up (lazily built generator tables, caches), then once measured; prints
/// the wall time and peak heap of the second run.
fn report(what: &str, request_bytes: usize, mut f: impl FnMut()) {
    f();
    let start = Instant::now();
    let info = measure(f);
    let elapsed = start.elapsed();
    println!(
        "limits {what}: request {request_bytes} bytes, {:.1} ms, peak heap {:.1} KiB",
        elapsed.as_secs_f64() * 1e3,
        info.bytes_max as f64 / 1024.0
    );
}

fn main() -> Result<(), privacy_tokens::Error> {
    let full = std::env::args().any(|a| a == "--full");
    let mut rng = rand::rng();

    // Privacy Pass type 0x0001 (P-384): one token, and the amortized batch at the default cap.
    let issuer = privacy_pass::Issuer::new(VoprfServer::<P384Sha384>::new(&mut rng));
    let challenge = TokenChallenge::new(
        privacy_pass::TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )?
    .to_bytes();
    let (single, _) = privacy_pass::Client::request(issuer.public_key(), &challenge, &mut rng)?;
    let single = single.to_bytes();
    report("privacy_pass/issue (1 token)", single.len(), || {
        let req = privacy_pass::TokenRequest::from_bytes(&single).expect("request");
        issuer.issue(&mut rand::rng(), &req).expect("issued");
    });
    let max = usize::from(DEFAULT_MAX_BATCH);
    let (batch, _) =
        privacy_pass::Client::request_batch(issuer.public_key(), &challenge, max, &mut rng)?;
    let batch = batch.to_bytes();
    report(
        &format!("privacy_pass/issue_batch ({max} tokens, the default cap)"),
        batch.len(),
        || {
            issuer
                .issue_batch_from_bytes(&mut rand::rng(), &batch)
                .expect("issued");
        },
    );

    // VOPRF (P-384): the library call has no cap below the RFC's 65535; the caller bounds it.
    if full {
        let server = VoprfServer::<P384Sha384>::new(&mut rng);
        let blinded: Vec<BlindedElement<P384Sha384>> = (0..u16::MAX)
            .map(|i| {
                VoprfClient::<P384Sha384>::blind(&i.to_be_bytes(), &mut rng)
                    .expect("blind")
                    .message
            })
            .collect();
        report(
            "voprf/blind_evaluate_batch (65535 elements, the RFC maximum)",
            blinded.len() * 49,
            || {
                server
                    .blind_evaluate_batch(&mut rand::rng(), &blinded)
                    .expect("evaluated");
            },
        );
    }

    // Trust Tokens: an issue request of `max_batchsize` tokens (100, as BoringSSL's tests and
    // Chrome's key commitments use), and a redemption (constant size).
    for method in [Method::PstV1Voprf, Method::PstV1Pmb] {
        let (private, public) = trust_token::generate_key(method, 1, &mut rng);
        let mut issuer = trust_token::Issuer::new(method, 100);
        issuer.add_key(private)?;
        let mut client = trust_token::Client::new(method, 100);
        client.add_key_bytes(&public.to_bytes())?;
        let request = client.begin_issuance(100, &mut rng)?;
        let message = request.message.clone();
        let mut response = None;
        report(
            &format!("trust_token/{}/issue (100 tokens)", method.name()),
            message.len(),
            || {
                response = Some(
                    issuer
                        .issue(
                            &message,
                            1,
                            method == Method::PstV1Pmb,
                            100,
                            &mut rand::rng(),
                        )
                        .expect("issued"),
                );
            },
        );
        let response = response.expect("issued");
        let tokens = client.finish_issuance(request.state, &response.message)?;
        let redemption = client.begin_redemption(&tokens[0], b"client data")?;
        report(
            &format!("trust_token/{}/redeem", method.name()),
            redemption.len(),
            || {
                issuer.redeem(&redemption).expect("redeemed");
            },
        );
    }

    // ARC v2 (P-256): issuance is fixed-size; a presentation grows with log2(limit), so the
    // largest is at the largest limit, 2^32 - 1.
    let key = arc::ServerPrivateKey::<ArcV2P256>::random(&mut rng);
    let request = arc::CredentialRequest::<ArcV2P256>::new(b"request context", &mut rng)?;
    let request_bytes = request.message.to_bytes();
    let mut response = None;
    report("arc/v2p256/issue", request_bytes.len(), || {
        let req = arc::CredentialRequest::<ArcV2P256>::from_bytes(&request_bytes).expect("req");
        response = Some(key.issue(&req, &mut rand::rng()).expect("issued"));
    });
    let mut credential = request
        .state
        .finalize(key.public_key(), &response.expect("issued"))?;
    let limit = u32::MAX;
    let presentation = credential
        .presentation_state(b"presentation context", limit)?
        .present(&mut rng)?;
    let presentation_bytes = presentation.to_bytes();
    report(
        "arc/v2p256/verify_presentation (limit 2^32 - 1)",
        presentation_bytes.len(),
        || {
            let p =
                arc::Presentation::<ArcV2P256>::from_bytes(&presentation_bytes).expect("decoded");
            key.verify_presentation(b"request context", b"presentation context", &p, limit)
                .expect("verified");
        },
    );
    Ok(())
}
