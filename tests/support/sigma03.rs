//! Harness for the draft-irtf-cfrg-sigma-protocols-03 / draft-irtf-cfrg-fiat-shamir-03 vector
//! files (`mmaker/draft-irtf-cfrg-sigma-protocols` `poc/vectors/` at `91cc933`): arrays of records
//! with `Id` (`sigma-protocols/...` or `fiat-shamir/...`) and `Function`.
//!
//! * `SigmaProof` with a `Witness` (the valid file): the instance and witness are rebuilt from the
//!   relation's definition and the appendix's seeded PRNG, the instance encoded and compared
//!   with `Instance`, the session id derived from the tag (and from the relation name, flavor
//!   and ciphersuite), the proof regenerated from the flavor's nonce stream and compared with
//!   `NargString`, then decoded and verified; a one-byte change of it must fail.
//! * `SigmaProof` without one (the adversarial file): `Instance` decoded, the NARG string decoded
//!   for its flavor, the instance validated, the proof verified; the outcome must be `Expected`,
//!   and a rejection must come from the step the record's class names (table in
//!   [`expected_rejection`]).
//! * The Fiat-Shamir records: sponge traces, `DeriveSessionID` and P-256 `DecodeUint` run on the
//!   crate; the generic codecs (variable-length strings, integers and fields modulo the file's
//!   moduli) and the sumcheck example over Mersenne31 are implemented here on the crate's
//!   sponge (the crate has no generic prime field), SHAKE128 only.

#![allow(dead_code)]

use p256::NistP256;
use privacy_tokens::arc::hazmat::Sigma03TestDrng;
use privacy_tokens::arc::sigma::{
    self, BatchableProof, Coefficient, CompactProof, Equation, Statement,
};
use privacy_tokens::arc::sigma03::{
    self, DuplexSponge, Flavor, Relation, Sigma03Transcript, P256_CIPHERSUITE,
};
use privacy_tokens::group::{self, Affine, Curve, Scalar};
use privacy_tokens::Error;
use serde_json::Value;

use super::counts::check;
pub use super::counts::Counts;

type C = NistP256;
/// Response capacity of the proofs replayed here.
const N: usize = 16;
/// Commitment capacity of the batchable proofs replayed here.
const M: usize = 16;

/// Whether a document is a sigma-protocols-03 / fiat-shamir-03 vector file.
pub fn recognises(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|r| {
                r.get("Function").is_some_and(Value::is_string)
                    && r.get("Id").and_then(Value::as_str).is_some_and(|id| {
                        id.starts_with("sigma-protocols/") || id.starts_with("fiat-shamir/")
                    })
            })
    })
}

/// Replays every record; one case each.
pub fn run(json: &Value) -> Result<Counts, String> {
    let records = json.as_array().ok_or("not an array")?;
    let mut counts = Counts::default();
    for rec in records {
        let id = str_field(rec, "Id").unwrap_or("?").to_string();
        let mismatches = match run_record(rec) {
            Ok(m) => m,
            Err(e) => vec![e],
        };
        counts.record(&id, mismatches);
    }
    Ok(counts)
}

fn run_record(rec: &Value) -> Result<Vec<String>, String> {
    let mut m = Vec::new();
    match str_field(rec, "Function")? {
        "SigmaProof" if rec.get("Witness").is_some() => sigma_valid(rec, &mut m)?,
        "SigmaProof" => sigma_decision(rec, &mut m)?,
        "DuplexSponge" => {
            let out = replay_operations(rec)?;
            check(&mut m, "Output", &out, &hex_field(rec, "Output")?);
        }
        "DeriveSessionID" => {
            let sid = sigma03::derive_session_id(&hex_field(rec, "Tag")?);
            check(&mut m, "Output", &sid, &hex_field(rec, "Output")?);
        }
        "DecodeUint" => decode_uint(rec, &mut m)?,
        "SerializeVarLenString" => {
            let input = hex_field(rec, "Input")?;
            let out = serialize_varlen(&input);
            check(&mut m, "Output", &out, &hex_field(rec, "Output")?);
            match deserialize_varlen(&out) {
                Some((payload, rest)) if payload == input.as_slice() && rest.is_empty() => {}
                _ => m.push("round trip failed".into()),
            }
        }
        "DeserializeVarLenString" => {
            expect_reject(rec)?;
            if deserialize_varlen(&hex_field(rec, "Input")?).is_some() {
                m.push("accepted".into());
            }
        }
        "SerializeUint" => {
            let p = int_field(rec, "Modulus")?;
            let v = int_field(rec, "Value")?;
            let out = serialize_uint(&v, &p).ok_or("value not below the modulus")?;
            check(&mut m, "Output", &out, &hex_field(rec, "Output")?);
            match deserialize_uint(&out, &p) {
                Some((x, rest)) if x == fixed_le(&v, width(&p)) && rest.is_empty() => {}
                _ => m.push("round trip failed".into()),
            }
        }
        "DeserializeUint" => {
            expect_reject(rec)?;
            let p = int_field(rec, "Modulus")?;
            if deserialize_uint(&hex_field(rec, "Input")?, &p).is_some() {
                m.push("accepted".into());
            }
        }
        "DeserializeField" => {
            let p = int_field(rec, "Modulus")?;
            let degree = rec
                .get("ExtensionDegree")
                .and_then(Value::as_u64)
                .ok_or("missing ExtensionDegree")? as usize;
            let input = hex_field(rec, "Input")?;
            let got = deserialize_field(&input, &p, degree);
            if str_field(rec, "Expected").ok() == Some("reject") {
                if got.is_some() {
                    m.push("accepted".into());
                }
            } else {
                let coords = rec
                    .get("Coordinates")
                    .and_then(Value::as_array)
                    .ok_or("missing Coordinates")?;
                let want: Vec<Vec<u8>> = coords
                    .iter()
                    .map(|c| int_value(c).map(|v| fixed_le(&v, width(&p))))
                    .collect::<Result<_, _>>()?;
                match got {
                    Some((coords, rest)) if rest.is_empty() && coords == want => {}
                    other => m.push(format!("got {other:?}")),
                }
            }
        }
        "SerializeField" => {
            if str_field(rec, "ByteOrder")? != "big-endian" {
                return Err("only the big-endian codec is pinned".into());
            }
            check_p256_modulus(rec)?;
            // Value as a P-256 scalar through the crate's (big-endian) scalar codec.
            let v = int_field(rec, "Value")?;
            let s = group::decode_scalar::<C>(&fixed_be(&v, C::SCALAR_LEN))
                .map_err(|e| format!("Value: {e}"))?;
            check(
                &mut m,
                "Output",
                C::scalar_bytes(&s).as_ref(),
                &hex_field(rec, "Output")?,
            );
        }
        "Sumcheck" => sumcheck(rec, &mut m)?,
        other => return Err(format!("unknown Function {other}")),
    }
    Ok(m)
}

// ---------------------------------------------------------------------------------------------
// Sigma proofs

/// The relations of the valid file, built from the instance stream of the seeded PRNG: the
/// element values, the equations, the scalar count and the witness.
struct Built {
    points: Vec<Affine<C>>,
    equations: Vec<Equation>,
    scalars: usize,
    witness: Vec<Scalar<C>>,
}

fn g_mul(k: &Scalar<C>) -> Affine<C> {
    group::to_affine(&group::mul_generator::<C>(k))
}

fn p_mul(p: &Affine<C>, k: &Scalar<C>) -> Affine<C> {
    group::to_affine(&group::mul_affine::<C>(p, k))
}

fn add(a: &Affine<C>, b: &Affine<C>) -> Affine<C> {
    group::to_affine(&(group::Point::<C>::from(*a) + group::Point::<C>::from(*b)))
}

/// Each relation as the draft's notation declares it (sigma-protocols-03 §"Specifying the
/// relation"), its parameters drawn in declaration order from
/// `TestDRNG-SIGMA-PROOFS-{ciphersuite}-{relation}`.
fn build(relation: &str) -> Result<Built, String> {
    let mut d = Sigma03TestDrng::for_vector(P256_CIPHERSUITE, relation, None);
    let mut draw = || d.next_scalar::<C>();
    let g = Affine::<C>::generator();
    let one = Coefficient::One;
    Ok(match relation {
        // X = x * G
        "discrete_logarithm" => {
            let x = draw();
            Built {
                points: vec![g, g_mul(&x)],
                equations: vec![Equation::new(1, &[(0, 0)])],
                scalars: 1,
                witness: vec![x],
            }
        }
        // X = x * G, Y = x * H (elements [G, X, H, Y])
        "dleq" | "dleq_derived_element" => {
            let h = g_mul(&draw());
            let x = draw();
            Built {
                points: vec![g, g_mul(&x), h, p_mul(&h, &x)],
                equations: vec![Equation::new(1, &[(0, 0)]), Equation::new(3, &[(0, 2)])],
                scalars: 1,
                witness: vec![x],
            }
        }
        // C = x * G + r * H
        "pedersen_commitment" => {
            let h = g_mul(&draw());
            let (x, r) = (draw(), draw());
            Built {
                points: vec![g, h, add(&g_mul(&x), &p_mul(&h, &r))],
                equations: vec![Equation::new(2, &[(0, 0), (1, 1)])],
                scalars: 2,
                witness: vec![x, r],
            }
        }
        // C1 = x * G1 + r * H1, C2 = x * G2 + r * H2
        "pedersen_commitment_dleq" => {
            let (g1, h1, g2, h2) = (
                g_mul(&draw()),
                g_mul(&draw()),
                g_mul(&draw()),
                g_mul(&draw()),
            );
            let (x, r) = (draw(), draw());
            let c1 = add(&p_mul(&g1, &x), &p_mul(&h1, &r));
            let c2 = add(&p_mul(&g2, &x), &p_mul(&h2, &r));
            Built {
                points: vec![g, g1, h1, c1, g2, h2, c2],
                equations: vec![
                    Equation::new(3, &[(0, 1), (1, 2)]),
                    Equation::new(6, &[(0, 4), (1, 5)]),
                ],
                scalars: 2,
                witness: vec![x, r],
            }
        }
        // C = blind * Q2 + msg_1 * J1 + msg_2 * J2 + msg_3 * J3
        "bbs_blind_commitment_computation" => {
            let (q2, j1, j2, j3) = (
                g_mul(&draw()),
                g_mul(&draw()),
                g_mul(&draw()),
                g_mul(&draw()),
            );
            let (m1, m2, m3, blind) = (draw(), draw(), draw(), draw());
            let c = [(q2, blind), (j1, m1), (j2, m2), (j3, m3)]
                .iter()
                .map(|(p, k)| p_mul(p, k))
                .reduce(|a, b| add(&a, &b))
                .ok_or("empty sum")?;
            Built {
                points: vec![g, q2, j1, j2, j3, c],
                equations: vec![Equation::new(5, &[(0, 1), (1, 2), (2, 3), (3, 4)])],
                scalars: 4,
                witness: vec![blind, m1, m2, m3],
            }
        }
        // X = x * G, M = x * E0 - E1 (compiled as M + E1 = x * E0; elements [G, X, E0, E1, M],
        // E0 = r * G, E1 = r * X - M)
        "elgamal_decryption" => {
            let x = draw();
            let xg = g_mul(&x);
            let r = draw();
            let e0 = g_mul(&r);
            let msg = g_mul(&draw());
            let e1 = add(&p_mul(&xg, &r), &-msg);
            Built {
                points: vec![g, xg, e0, e1, msg],
                equations: vec![
                    Equation::new(1, &[(0, 0)]),
                    Equation::with_coefficients(&[(4, one), (3, one)], &[(0, 2, one)]),
                ],
                scalars: 1,
                witness: vec![x],
            }
        }
        other => return Err(format!("unknown relation {other}")),
    })
}

fn flavor_of(rec: &Value) -> Result<Flavor, String> {
    match str_field(rec, "Flavor")? {
        "batchable" => Ok(Flavor::Batchable),
        "compact" => Ok(Flavor::Compact),
        other => Err(format!("unknown flavor {other}")),
    }
}

/// Proves for `relation` and returns the NARG string.
fn prove(
    relation: &Relation<C>,
    session_id: &[u8; 32],
    flavor: Flavor,
    witness: &[Scalar<C>],
    nonces: &[Scalar<C>],
) -> Result<Vec<u8>, Error> {
    let prefix = relation.prefix(session_id)?;
    let (st, el) = (relation.statement(), relation.elements());
    match flavor {
        Flavor::Batchable => {
            let p = sigma::prove_batchable::<C, Sigma03Transcript<true>, M, N>(
                &prefix, &st, &el, witness, nonces,
            )?;
            let mut out = vec![0u8; p.encoded_len()];
            p.encode_into(&mut out)?;
            Ok(out)
        }
        Flavor::Compact => {
            let p =
                sigma::prove::<C, Sigma03Transcript<true>, N>(&prefix, &st, &el, witness, nonces)?;
            let mut out = vec![0u8; p.encoded_len()];
            p.encode_into(&mut out)?;
            Ok(out)
        }
    }
}

/// The verifier's steps, each with its error: where a NARG string was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// `Relation::decode` of the instance bytes.
    Instance,
    /// Strict decoding of the NARG string for its flavor.
    Narg,
    /// `validate_instance`.
    Validate,
    /// The verification equation / challenge comparison.
    Verify,
}

/// Decodes and verifies; `VALIDATE` picks the transcript (the separate validation step runs
/// only when it is `true`).
fn decide<const VALIDATE: bool>(
    instance: &[u8],
    session_id: &[u8; 32],
    flavor: Flavor,
    narg: &[u8],
) -> Result<(), (Stage, Error)> {
    let relation = Relation::<C>::decode(instance).map_err(|e| (Stage::Instance, e))?;
    let (st, el) = (relation.statement(), relation.elements());
    let prefix = relation
        .prefix(session_id)
        .map_err(|e| (Stage::Instance, e))?;
    let validate = || {
        if VALIDATE {
            relation.validate().map_err(|e| (Stage::Validate, e))
        } else {
            Ok(())
        }
    };
    match flavor {
        Flavor::Batchable => {
            let p = BatchableProof::<C, M, N>::decode(narg, st.equations.len(), st.scalars)
                .map_err(|e| (Stage::Narg, e))?;
            validate()?;
            sigma::verify_batchable::<C, Sigma03Transcript<VALIDATE>, M, N>(&prefix, &st, &el, &p)
        }
        Flavor::Compact => {
            let p = CompactProof::<C, N>::decode(narg, st.scalars).map_err(|e| (Stage::Narg, e))?;
            validate()?;
            sigma::verify::<C, Sigma03Transcript<VALIDATE>, N>(&prefix, &st, &el, &p)
        }
    }
    .map_err(|e| (Stage::Verify, e))
}

fn sigma_valid(rec: &Value, m: &mut Vec<String>) -> Result<(), String> {
    if str_field(rec, "Ciphersuite")? != P256_CIPHERSUITE || str_field(rec, "Expected")? != "accept"
    {
        return Err("not a P-256 accept record".into());
    }
    let relation_name = str_field(rec, "Relation")?;
    let flavor = flavor_of(rec)?;
    let tag = str_field(rec, "Tag")?;
    let want_sid = hex_field(rec, "SessionId")?;
    let sid = sigma03::derive_session_id(tag.as_bytes());
    check(m, "SessionId", &sid, &want_sid);
    check(
        m,
        "SessionId from the relation name",
        &sigma03::p256_session_id(relation_name.as_bytes(), flavor),
        &want_sid,
    );

    let b = build(relation_name)?;
    let st = Statement {
        scalars: b.scalars,
        elements: b.points.len(),
        equations: &b.equations,
    };
    let relation = Relation::<C>::new(&st, &b.points, &[]).map_err(|e| format!("new: {e}"))?;
    let mut instance = vec![0u8; relation.encoded_len()];
    relation
        .encode_into(&mut instance)
        .map_err(|e| e.to_string())?;
    let want_instance = hex_field(rec, "Instance")?;
    check(m, "Instance", &instance, &want_instance);
    let witness: Vec<u8> = b
        .witness
        .iter()
        .flat_map(|w| C::scalar_bytes(w).to_vec())
        .collect();
    check(m, "Witness", &witness, &hex_field(rec, "Witness")?);
    if let Err(e) = relation.validate() {
        m.push(format!("instance validation: {e}"));
    }
    // The decoder reads back the same relation.
    match Relation::<C>::decode(&want_instance) {
        Ok(back) if back.statement().equations == st.equations => {}
        other => m.push(format!("Instance decodes to {other:?}")),
    }

    let mut nonces_src = Sigma03TestDrng::for_vector(P256_CIPHERSUITE, relation_name, Some(flavor));
    let nonces: Vec<Scalar<C>> = (0..b.scalars)
        .map(|_| nonces_src.next_scalar::<C>())
        .collect();
    let narg =
        prove(&relation, &sid, flavor, &b.witness, &nonces).map_err(|e| format!("prove: {e}"))?;
    let want_narg = hex_field(rec, "NargString")?;
    check(m, "NargString", &narg, &want_narg);

    let sid_arr: [u8; 32] = want_sid
        .as_slice()
        .try_into()
        .map_err(|_| "SessionId length")?;
    if let Err(e) = decide::<true>(&want_instance, &sid_arr, flavor, &want_narg) {
        m.push(format!("published NargString rejected: {e:?}"));
    }
    // Control: a change in the last byte (a response) must be rejected.
    let mut bad = want_narg.clone();
    if let Some(last) = bad.last_mut() {
        *last ^= 1;
    }
    if decide::<true>(&want_instance, &sid_arr, flavor, &bad).is_ok() {
        m.push("a modified NargString verified".into());
    }
    Ok(())
}

/// Where each class of adversarial record must be rejected (the letter after the last `/` of
/// its `Id`; the record's `Comment` says the same in words). `E3` and `E4` carry instances our
/// strict decoder refuses before validation, as their comments allow.
fn expected_rejection(case: &str) -> Option<&'static [(Stage, Error)]> {
    use Stage::*;
    Some(match case {
        // SEC1 prefixes 0x04/0x06/0x07, x >= p, zero padding, x off the curve.
        c if c.starts_with('A') => &[(Narg, Error::InvalidPoint), (Narg, Error::IdentityElement)],
        // A response or challenge of order + 1.
        c if c.starts_with('B') => &[(Narg, Error::NonCanonicalScalar)],
        // A trailing byte, a missing byte.
        c if c.starts_with('C') => &[(Narg, Error::InvalidLength)],
        // The identity element as a statement element.
        "E3" => &[
            (Instance, Error::IdentityElement),
            (Validate, Error::InvalidInstance),
        ],
        // A term on element 2 with one element serialized.
        "E4" => &[
            (Instance, Error::InvalidLength),
            (Validate, Error::InvalidInstance),
        ],
        // An unconstrained scalar, an identity image.
        c if c.starts_with('E') => &[(Validate, Error::InvalidInstance)],
        // The all-zero proof, another tag / statement / flavor, modified values.
        c if c.starts_with('D') || c.starts_with('F') || c.starts_with('H') => {
            &[(Verify, Error::InvalidProof)]
        }
        _ => return None,
    })
}

fn sigma_decision(rec: &Value, m: &mut Vec<String>) -> Result<(), String> {
    if str_field(rec, "Ciphersuite")? != P256_CIPHERSUITE {
        return Err("not a P-256 record".into());
    }
    let id = str_field(rec, "Id")?;
    let case = id.rsplit('/').next().unwrap_or("");
    let flavor = flavor_of(rec)?;
    let sid = sigma03::derive_session_id(str_field(rec, "Tag")?.as_bytes());
    let instance = hex_field(rec, "Instance")?;
    let narg = hex_field(rec, "NargString")?;
    let got = decide::<true>(&instance, &sid, flavor, &narg);
    match (str_field(rec, "Expected")?, got) {
        ("accept", Ok(())) => {}
        ("accept", Err(e)) => m.push(format!("rejected: {e:?}")),
        ("reject", Ok(())) => m.push("accepted".into()),
        ("reject", Err(e)) => {
            let allowed = expected_rejection(case).ok_or("no expectation for this case")?;
            if !allowed.contains(&e) {
                m.push(format!("rejected at {e:?}, expected one of {allowed:?}"));
            }
            // E1/E1b/E2: the proof satisfies its equations, so only validation rejects it.
            if e.0 == Stage::Validate && decide::<false>(&instance, &sid, flavor, &narg).is_err() {
                m.push("the unvalidated verifier rejects it too".into());
            }
        }
        (other, _) => return Err(format!("unknown Expected {other}")),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Fiat-Shamir

fn session_id(rec: &Value) -> Result<[u8; 32], String> {
    hex_field(rec, "SessionId")?
        .as_slice()
        .try_into()
        .map_err(|_| "SessionId is not 32 bytes".into())
}

/// Runs an `Operations` trace on the crate's sponge; the squeezed bytes concatenated.
fn replay_operations(rec: &Value) -> Result<Vec<u8>, String> {
    let mut ds = DuplexSponge::new(&session_id(rec)?);
    let mut out = Vec::new();
    for op in rec
        .get("Operations")
        .and_then(Value::as_array)
        .ok_or("missing Operations")?
    {
        match str_field(op, "type")? {
            "absorb" => ds.absorb(&hex_field(op, "data")?),
            "squeeze" => {
                let n = op.get("length").and_then(Value::as_u64).ok_or("length")? as usize;
                let start = out.len();
                out.resize(start + n, 0);
                ds.squeeze(&mut out[start..]);
            }
            other => return Err(format!("unknown operation {other}")),
        }
    }
    Ok(out)
}

fn check_p256_modulus(rec: &Value) -> Result<(), String> {
    if str_field(rec, "Group")? != "P-256" {
        return Err("only P-256 is pinned".into());
    }
    // The modulus is the group order: `n - 1` is the scalar -1, `n` is not a scalar.
    let n = fixed_be(&int_field(rec, "Modulus")?, C::SCALAR_LEN);
    let mut n_minus_1 = n.clone();
    if let Some(last) = n_minus_1.last_mut() {
        *last = last.wrapping_sub(1); // n is odd
    }
    let minus_one = group::decode_scalar::<C>(&n_minus_1).map_err(|e| e.to_string())?;
    if minus_one != -Scalar::<C>::from(1u64) || group::decode_scalar::<C>(&n).is_ok() {
        return Err("Modulus is not the P-256 group order".into());
    }
    Ok(())
}

fn decode_uint(rec: &Value, m: &mut Vec<String>) -> Result<(), String> {
    check_p256_modulus(rec)?;
    let bytes = if rec.get("Operations").is_some() {
        let out = replay_operations(rec)?;
        check(m, "Output", &out, &hex_field(rec, "Output")?);
        out
    } else {
        hex_field(rec, "Input")?
    };
    let c = sigma03::decode_uint::<C>(&bytes).map_err(|e| format!("decode_uint: {e}"))?;
    let want = fixed_be(&int_field(rec, "Challenge")?, C::SCALAR_LEN);
    check(m, "Challenge", C::scalar_bytes(&c).as_ref(), &want);
    Ok(())
}

fn serialize_varlen(s: &[u8]) -> Vec<u8> {
    let mut out = (s.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(s);
    out
}

/// `DeserializeVarLenString`: payload and remainder.
fn deserialize_varlen(buf: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = buf.split_first_chunk::<4>()?;
    let n = u32::from_le_bytes(*len) as usize;
    (rest.len() >= n).then(|| rest.split_at(n))
}

/// A big-endian integer without leading zeros, from a JSON number or a `0x` hex string.
fn int_value(v: &Value) -> Result<Vec<u8>, String> {
    let be = match v {
        Value::Number(n) => n.as_u64().ok_or("not a u64")?.to_be_bytes().to_vec(),
        Value::String(s) => {
            let h = s.strip_prefix("0x").ok_or("integer without 0x")?;
            let h = if h.len() % 2 == 1 {
                format!("0{h}")
            } else {
                h.to_string()
            };
            hex::decode(h).map_err(|e| e.to_string())?
        }
        _ => return Err("not an integer".into()),
    };
    let first = be.iter().position(|&b| b != 0).unwrap_or(be.len());
    Ok(be[first..].to_vec())
}

fn int_field(rec: &Value, key: &str) -> Result<Vec<u8>, String> {
    int_value(rec.get(key).ok_or_else(|| format!("missing {key}"))?)
}

fn fixed_be(v: &[u8], w: usize) -> Vec<u8> {
    let mut out = vec![0u8; w.saturating_sub(v.len())];
    out.extend_from_slice(&v[v.len().saturating_sub(w)..]);
    out
}

fn fixed_le(v: &[u8], w: usize) -> Vec<u8> {
    let mut out = fixed_be(v, w);
    out.reverse();
    out
}

/// `Ns` of the field of characteristic `p` (odd): the bytes of `p - 1`, which has the bit length
/// of `p`.
fn width(p: &[u8]) -> usize {
    p.len()
}

/// `x < p` for a little-endian `x` of `width(p)` bytes.
fn below(x_le: &[u8], p: &[u8]) -> bool {
    let x_be: Vec<u8> = x_le.iter().rev().copied().collect();
    x_be.as_slice() < fixed_be(p, x_le.len()).as_slice()
}

fn serialize_uint(v: &[u8], p: &[u8]) -> Option<Vec<u8>> {
    let out = fixed_le(v, width(p));
    (v.len() <= width(p) && below(&out, p)).then_some(out)
}

/// `DeserializeUint`: `Ns` canonical little-endian bytes and the remainder.
fn deserialize_uint<'a>(buf: &'a [u8], p: &[u8]) -> Option<(Vec<u8>, &'a [u8])> {
    let ns = width(p);
    if buf.len() < ns || !below(&buf[..ns], p) {
        return None;
    }
    Some((buf[..ns].to_vec(), &buf[ns..]))
}

fn deserialize_field<'a>(
    mut buf: &'a [u8],
    p: &[u8],
    degree: usize,
) -> Option<(Vec<Vec<u8>>, &'a [u8])> {
    let mut coords = Vec::new();
    for _ in 0..degree {
        let (x, rest) = deserialize_uint(buf, p)?;
        coords.push(x);
        buf = rest;
    }
    Some((coords, buf))
}

// The sumcheck example of fiat-shamir-03 Appendix "Example: sumcheck", over Mersenne31.

const P31: u64 = (1 << 31) - 1;

fn instance_encoding(v: usize, claimed: u64) -> Vec<u8> {
    let mut out = (v as u32).to_le_bytes().to_vec();
    out.extend_from_slice(&(claimed as u32).to_le_bytes());
    out
}

fn challenge31(ds: &mut DuplexSponge) -> u64 {
    let mut b = [0u8; 4];
    ds.squeeze(&mut b);
    u64::from(u32::from_le_bytes(b)) % P31
}

/// `SumcheckProve`: the NARG string, the challenges and the final evaluation.
fn sumcheck_prove(sid: &[u8; 32], witness: &[u64]) -> (Vec<u8>, Vec<u64>, u64) {
    let v = witness.len().trailing_zeros() as usize;
    let mut ds = DuplexSponge::new(sid);
    ds.absorb(&instance_encoding(v, witness.iter().sum::<u64>() % P31));
    let mut w = witness.to_vec();
    let (mut narg, mut rs) = (Vec::new(), Vec::new());
    while w.len() > 1 {
        let g0 = w.iter().step_by(2).sum::<u64>() % P31;
        let g1 = w.iter().skip(1).step_by(2).sum::<u64>() % P31;
        let a1 = (g1 + P31 - g0) % P31;
        let mut msg = (g0 as u32).to_le_bytes().to_vec();
        msg.extend_from_slice(&(a1 as u32).to_le_bytes());
        ds.absorb(&msg);
        narg.extend_from_slice(&msg);
        let r = challenge31(&mut ds);
        w = w
            .chunks(2)
            .map(|p| (p[0] + r * ((p[1] + P31 - p[0]) % P31)) % P31)
            .collect();
        rs.push(r);
    }
    (narg, rs, w[0])
}

/// `SumcheckVerify`: the challenges on acceptance.
fn sumcheck_verify(
    sid: &[u8; 32],
    v: usize,
    claimed: u64,
    mut narg: &[u8],
    y: u64,
) -> Option<Vec<u64>> {
    let p = P31.to_be_bytes();
    let p = &p[4..];
    let mut ds = DuplexSponge::new(sid);
    ds.absorb(&instance_encoding(v, claimed));
    let (mut current, mut rs) = (claimed, Vec::new());
    for _ in 0..v {
        let (coords, rest) = deserialize_field(narg, p, 2)?;
        narg = rest;
        let a0 = u64::from(u32::from_le_bytes(coords[0].as_slice().try_into().ok()?));
        let a1 = u64::from(u32::from_le_bytes(coords[1].as_slice().try_into().ok()?));
        if (2 * a0 + a1) % P31 != current {
            return None;
        }
        ds.absorb(&[coords[0].as_slice(), coords[1].as_slice()].concat());
        let r = challenge31(&mut ds);
        current = (a0 + a1 * r) % P31;
        rs.push(r);
    }
    (narg.is_empty() && current == y).then_some(rs)
}

/// The multilinear extension of `w` at `rs` (bit `k` of the index pairs with `rs[k]`).
fn multilinear_eval(w: &[u64], rs: &[u64]) -> u64 {
    w.iter().enumerate().fold(0, |acc, (j, &wj)| {
        let term = rs.iter().enumerate().fold(wj % P31, |t, (k, &r)| {
            let f = if (j >> k) & 1 == 1 {
                r
            } else {
                (1 + P31 - r) % P31
            };
            t * f % P31
        });
        (acc + term) % P31
    })
}

fn u64_field(rec: &Value, key: &str) -> Result<u64, String> {
    let be = int_field(rec, key)?;
    if be.len() > 8 {
        return Err(format!("{key} too large"));
    }
    Ok(be.iter().fold(0, |a, &b| a << 8 | u64::from(b)))
}

fn sumcheck(rec: &Value, m: &mut Vec<String>) -> Result<(), String> {
    if u64_field(rec, "Modulus")? != P31 {
        return Err("only Mersenne31 is pinned".into());
    }
    let sid = session_id(rec)?;
    if rec.get("Tag").is_some() {
        let derived = sigma03::derive_session_id(&hex_field(rec, "Tag")?);
        check(m, "SessionId", &derived, &sid);
    }
    let v = u64_field(rec, "NumVariables")? as usize;
    let claimed = u64_field(rec, "ClaimedSum")?;
    let narg = hex_field(rec, "Narg")?;
    if str_field(rec, "Expected").ok() == Some("reject") {
        // As the reference harness: the final evaluation 0.
        if sumcheck_verify(&sid, v, claimed, &narg, 0).is_some() {
            m.push("accepted".into());
        }
        return Ok(());
    }
    let witness: Vec<u64> = rec
        .get("Witness")
        .and_then(Value::as_array)
        .ok_or("missing Witness")?
        .iter()
        .map(|w| int_value(w).map(|b| b.iter().fold(0u64, |a, &x| a << 8 | u64::from(x))))
        .collect::<Result<_, _>>()?;
    if witness.len() != 1 << v || witness.iter().sum::<u64>() % P31 != claimed {
        m.push("witness does not match NumVariables / ClaimedSum".into());
    }
    let (proof, rs, last) = sumcheck_prove(&sid, &witness);
    check(m, "Narg", &proof, &narg);
    if last != u64_field(rec, "FinalEvaluation")? || last != multilinear_eval(&witness, &rs) {
        m.push(format!("final evaluation {last:#x}"));
    }
    if sumcheck_verify(&sid, v, claimed, &narg, last) != Some(rs) {
        m.push("the verifier rejects or derives other challenges".into());
    }
    if sumcheck_verify(&sid, v, claimed, &narg, (last + 1) % P31).is_some() {
        m.push("a wrong final evaluation is accepted".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Fields

fn str_field<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing {key}"))
}

fn hex_field(v: &Value, key: &str) -> Result<Vec<u8>, String> {
    hex::decode(str_field(v, key)?).map_err(|e| format!("{key}: bad hex: {e}"))
}

fn expect_reject(rec: &Value) -> Result<(), String> {
    match str_field(rec, "Expected")? {
        "reject" => Ok(()),
        other => Err(format!("only rejections are pinned, got {other}")),
    }
}
