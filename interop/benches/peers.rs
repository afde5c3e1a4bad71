//! AWS-LC, BoringSSL and ours side by side, in one criterion run.
//!
//! Trust Token ids: `awslc/<method>/<step>/<batch>`, `boringssl/<method>/<step>/<batch>` and
//! `trust_token/<method>/<step>/<batch>` for `pst_v1_voprf` and `pst_v1_pmb`, steps `issue`,
//! `finish_issuance` (one op handles `batch` tokens) and `redeem` (one token out of a batch of
//! `batch`), batches 1, 10 and 100; run interleaved (AWS-LC, BoringSSL, ours for each cell) so
//! the three see the same machine noise. All three use the same key (id 7, private bit 0), and
//! issuers and clients whose max batch size is `batch`.
//!
//! `finish_issuance` needs a client holding the pretokens of the response for each iteration,
//! made outside the timed region: a fresh AWS-LC client that ran `begin_issuance` (and AWS-LC's
//! issuer answered), since AWS-LC has no `TRUST_TOKEN_CLIENT_dup_for_testing`; BoringSSL's
//! `dup_for_testing` of one pending client; our issuance state decoded from its bytes.
//!
//! Curve ids: `curve/awslc/<curve>/mul` (`EC_POINT_mul` with a variable base point and scalar)
//! and `curve/awslc/<curve>/mul_base` (the generator) next to `curve/privacy-tokens/<curve>/mul_ct`
//! and `.../mul_base_ct` (`privacy_tokens::group::mul` and `mul_generator`, constant time), on
//! P-256 and P-384. Both sides return a Jacobian point (no affine conversion).
//!
//! RSA ids: `rsa/awslc/2048/private_op` (`RSA_sign_raw` with `RSA_NO_PADDING`: AWS-LC's private
//! operation, by CRT with its input blinding and its check of the result against the public
//! operation; AVX-512 IFMA code where the CPU has it) next to `rsa/privacy-tokens/2048/blind_sign`
//! (`privacy_tokens::blind_rsa::SecretKey::blind_sign`: decoding, the CRT private operation,
//! constant time, its check against the public operation, encoding), on the same RSA-2048 key
//! (RFC 9578 A.2, `blind_rsa::test_key`, handed to AWS-LC as PKCS#8 DER) and the same blinded
//! message; `tests/awslc.rs` checks that the two outputs are equal. AWS-LC writes into a
//! preallocated buffer; ours returns a new 256-byte `Vec`.
//!
//! Affordable by default (10 samples, 0.5 s warm-up, 2 s measurement per id; criterion switches
//! to flat sampling where 2 s would not fit); `PEERS_WARM_UP_MS` and `PEERS_MEASUREMENT_MS`
//! override the two times.

use criterion::{BatchSize, Criterion};
use privacy_tokens::blind_rsa;
use privacy_tokens::trust_token as tt;
use privacy_tokens::{group, P256Sha256, P384Sha384, Suite};
use privacy_tokens_interop::awslc::curve::{Curve, Group};
use privacy_tokens_interop::awslc::rsa::PrivateKey as RsaKey;
use privacy_tokens_interop::{awslc, boringssl, KeyPair, Method};
use std::hint::black_box;
use std::time::Duration;

const METHODS: [Method; 2] = [Method::PstV1Voprf, Method::PstV1Pmb];
const BATCHES: [usize; 3] = [1, 10, 100];
const KEY_ID: u32 = 7;
const CLIENT_DATA: &[u8] = b"client data";

/// AWS-LC's client and issuer, with one issuance (`request`, `response`) and one redemption.
struct AwsLc {
    issuer: awslc::Issuer,
    request: Vec<u8>,
    redemption: Vec<u8>,
}

impl AwsLc {
    fn new(method: Method, batch: usize, key: &KeyPair) -> Self {
        let mut issuer = awslc::Issuer::new(method, batch).unwrap();
        issuer.add_key(&key.private).unwrap();
        let (mut client, response) = Self::pending(method, batch, key, &issuer);
        let (_, tokens) = client.finish_issuance(&response).unwrap();
        let redemption = client.begin_redemption(&tokens[0], CLIENT_DATA, 0).unwrap();
        let request = client.begin_issuance(batch).unwrap();
        Self {
            issuer,
            request,
            redemption,
        }
    }

    /// A fresh client holding the pretokens of `batch` tokens, and the issuer's response.
    fn pending(
        method: Method,
        batch: usize,
        key: &KeyPair,
        issuer: &awslc::Issuer,
    ) -> (awslc::Client, Vec<u8>) {
        let mut client = awslc::Client::new(method, batch).unwrap();
        client.add_key(&key.public).unwrap();
        let request = client.begin_issuance(batch).unwrap();
        let (response, issued) = issuer.issue(&request, KEY_ID, 0, batch).unwrap();
        assert_eq!(issued, batch);
        (client, response)
    }
}

/// BoringSSL's client (with a pending issuance, for `dup_for_testing`) and issuer.
struct Boring {
    client: boringssl::Client,
    issuer: boringssl::Issuer,
    request: Vec<u8>,
    response: Vec<u8>,
    redemption: Vec<u8>,
}

impl Boring {
    fn new(method: Method, batch: usize, key: &KeyPair) -> Self {
        let mut client = boringssl::Client::new(method, batch).unwrap();
        client.add_key(&key.public).unwrap();
        let mut issuer = boringssl::Issuer::new(method, batch).unwrap();
        issuer.add_key(&key.private).unwrap();
        let request = client.begin_issuance(batch).unwrap();
        let (response, issued) = issuer.issue(&request, KEY_ID, 0, batch).unwrap();
        assert_eq!(issued, batch);
        let (_, tokens) = client
            .dup_for_testing()
            .unwrap()
            .finish_issuance(&response)
            .unwrap();
        let redemption = client.begin_redemption(&tokens[0], CLIENT_DATA, 0).unwrap();
        Self {
            client,
            issuer,
            request,
            response,
            redemption,
        }
    }
}

/// Our client and issuer, with the secret bytes of one pending issuance state.
struct Ours {
    client: tt::Client,
    issuer: tt::Issuer,
    request: Vec<u8>,
    state: Vec<u8>,
    response: Vec<u8>,
    redemption: Vec<u8>,
}

impl Ours {
    fn new(method: Method, batch: usize, key: &KeyPair) -> Self {
        let mut rng = rand::rng();
        let method = tt::Method::from_name(method.name()).unwrap();
        let batch16 = u16::try_from(batch).unwrap();
        let mut client = tt::Client::new(method, batch16);
        client.add_key_bytes(&key.public).unwrap();
        let mut issuer = tt::Issuer::new(method, batch16);
        issuer.add_key_bytes(&key.private).unwrap();
        let request = client.begin_issuance(batch, &mut rng).unwrap();
        let response = issuer
            .issue(&request.message, KEY_ID, false, batch16, &mut rng)
            .unwrap();
        assert_eq!(usize::from(response.issued), batch);
        let state = request.state.to_secret_bytes().to_vec();
        let tokens = client
            .finish_issuance(
                tt::IssuanceState::from_secret_bytes(&state).unwrap(),
                &response.message,
            )
            .unwrap();
        let redemption = client.begin_redemption(&tokens[0], CLIENT_DATA).unwrap();
        Self {
            client,
            issuer,
            request: request.message,
            state,
            response: response.message,
            redemption,
        }
    }
}

fn trust_token(c: &mut Criterion, method: Method, batch: usize) {
    let m = method.name();
    let key = boringssl::generate_key(method, KEY_ID).unwrap();
    let aws = AwsLc::new(method, batch, &key);
    let boring = Boring::new(method, batch, &key);
    let ours = Ours::new(method, batch, &key);
    let batch16 = u16::try_from(batch).unwrap();
    let mut rng = rand::rng();

    c.bench_function(&format!("awslc/{m}/issue/{batch}"), |b| {
        b.iter(|| aws.issuer.issue(&aws.request, KEY_ID, 0, batch).unwrap())
    });
    c.bench_function(&format!("boringssl/{m}/issue/{batch}"), |b| {
        b.iter(|| {
            boring
                .issuer
                .issue(&boring.request, KEY_ID, 0, batch)
                .unwrap()
        })
    });
    c.bench_function(&format!("trust_token/{m}/issue/{batch}"), |b| {
        b.iter(|| {
            ours.issuer
                .issue(&ours.request, KEY_ID, false, batch16, &mut rng)
                .unwrap()
        })
    });

    c.bench_function(&format!("awslc/{m}/finish_issuance/{batch}"), |b| {
        b.iter_batched(
            || AwsLc::pending(method, batch, &key, &aws.issuer),
            // The client is handed back, so that its free falls outside the timing too.
            |(mut client, response)| {
                let tokens = client.finish_issuance(&response).unwrap();
                (client, tokens)
            },
            BatchSize::PerIteration,
        )
    });
    c.bench_function(&format!("boringssl/{m}/finish_issuance/{batch}"), |b| {
        b.iter_batched(
            || boring.client.dup_for_testing().unwrap(),
            |mut client| {
                let tokens = client.finish_issuance(&boring.response).unwrap();
                (client, tokens)
            },
            BatchSize::PerIteration,
        )
    });
    c.bench_function(&format!("trust_token/{m}/finish_issuance/{batch}"), |b| {
        b.iter_batched(
            || tt::IssuanceState::from_secret_bytes(&ours.state).unwrap(),
            |state| ours.client.finish_issuance(state, &ours.response).unwrap(),
            BatchSize::SmallInput,
        )
    });

    c.bench_function(&format!("awslc/{m}/redeem/{batch}"), |b| {
        b.iter(|| aws.issuer.redeem(&aws.redemption).unwrap())
    });
    c.bench_function(&format!("boringssl/{m}/redeem/{batch}"), |b| {
        b.iter(|| boring.issuer.redeem(&boring.redemption).unwrap())
    });
    c.bench_function(&format!("trust_token/{m}/redeem/{batch}"), |b| {
        b.iter(|| ours.issuer.redeem(&ours.redemption).unwrap())
    });
}

/// `curve/awslc/<curve>/{mul,mul_base}` next to `curve/privacy-tokens/<curve>/{mul,mul_base}_ct`,
/// with the same scalar and base point.
fn curve<C: group::Curve>(c: &mut Criterion, curve: Curve) {
    let name = curve.name();
    let mut rng = rand::rng();
    let k = group::random_scalar::<C>(&mut rng);
    let p = group::mul_generator::<C>(&group::random_scalar::<C>(&mut rng));
    let g = Group::new(curve).unwrap();
    let k_aws = g.scalar(C::scalar_bytes(&k).as_ref()).unwrap();
    let p_bytes = C::encode_uncompressed(&group::to_affine(&p));
    let p_aws = g.decode_point(p_bytes.as_ref()).unwrap();
    let mut out = g.new_point().unwrap();

    c.bench_function(&format!("curve/awslc/{name}/mul"), |b| {
        b.iter(|| {
            g.mul(&mut out, black_box(&p_aws), black_box(&k_aws))
                .unwrap()
        })
    });
    c.bench_function(&format!("curve/privacy-tokens/{name}/mul_ct"), |b| {
        b.iter(|| group::mul::<C>(black_box(&p), black_box(&k)))
    });
    c.bench_function(&format!("curve/awslc/{name}/mul_base"), |b| {
        b.iter(|| g.mul_base(&mut out, black_box(&k_aws)).unwrap())
    });
    c.bench_function(&format!("curve/privacy-tokens/{name}/mul_base_ct"), |b| {
        b.iter(|| group::mul_generator::<C>(black_box(&k)))
    });
}

/// `rsa/awslc/2048/private_op` next to `rsa/privacy-tokens/2048/blind_sign`, on the same key and
/// blinded message.
fn rsa(c: &mut Criterion) {
    let sk = blind_rsa::test_key().unwrap();
    let pk = sk.public_key().clone();
    let aws = RsaKey::from_pkcs8_der(&sk.to_pkcs8_der()).unwrap();
    let mut rng = rand::rng();
    let (blinded, _) = pk
        .blind(
            blind_rsa::Variant::PssDeterministic,
            b"a token input",
            &mut rng,
        )
        .unwrap();
    let blinded = blinded.into_bytes();
    let mut out = vec![0u8; aws.size()];
    aws.private_op_into(&blinded, &mut out).unwrap();
    assert_eq!(out, sk.blind_sign(&blinded).unwrap().into_bytes());

    c.bench_function("rsa/awslc/2048/private_op", |b| {
        b.iter(|| aws.private_op_into(black_box(&blinded), &mut out).unwrap())
    });
    c.bench_function("rsa/privacy-tokens/2048/blind_sign", |b| {
        b.iter(|| sk.blind_sign(black_box(&blinded)).unwrap())
    });
}

/// A duration in milliseconds from the environment variable `name`, or `default`.
fn millis(name: &str, default: u64) -> Duration {
    let ms = match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number of milliseconds")),
        Err(_) => default,
    };
    Duration::from_millis(ms)
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(millis("PEERS_WARM_UP_MS", 500))
        .measurement_time(millis("PEERS_MEASUREMENT_MS", 2000))
}

fn main() {
    // `criterion_main!` / `criterion_group!` expanded by hand: the macro's `pub fn` would trip
    // the crate's `missing_docs` lint.
    let mut c = config().configure_from_args();
    for method in METHODS {
        for batch in BATCHES {
            trust_token(&mut c, method, batch);
        }
    }
    curve::<<P256Sha256 as Suite>::Group>(&mut c, Curve::P256);
    curve::<<P384Sha384 as Suite>::Group>(&mut c, Curve::P384);
    rsa(&mut c);
    c.final_summary();
}
