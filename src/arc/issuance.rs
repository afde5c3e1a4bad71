//! Credential issuance: request, response, finalization (crypto-01 §"Credential Issuance").

use core::fmt;

use rand_core::CryptoRng;
use zeroize::{Zeroize, ZeroizeOnDrop};

use super::keys::{ServerPrivateKey, ServerPublicKey};
use super::sigma::{self, Base, CompactProof, Elements};
use super::statements::{self, REQUEST_SCALARS, RESPONSE_SCALARS};
use super::wire::{Reader, Writer};
use super::{ArcSuite, RngSource, ScalarSource};
use crate::group::{self, validation, Affine, Curve, Point, Scalar};
use crate::{Error, Result};

type C<S> = <S as ArcSuite>::Curve;
type Enc<S> = <C<S> as Curve>::Compressed;

/// `m2 = HashToScalar(requestContext, "requestContext")`.
pub(crate) fn request_context_scalar<S: ArcSuite>(request_context: &[u8]) -> Result<Scalar<C<S>>> {
    super::hash_to_scalar::<S>(&[request_context], b"requestContext")
}

// ---------------------------------------------------------------------------------------------
// Request

/// A client's credential request: `m1Enc`, `m2Enc` and the request proof
/// (crypto-01 §"Credential Request"). Encoding `m1Enc || m2Enc || c || 4 responses`
/// (226 bytes on P-256).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CredentialRequest<S: ArcSuite> {
    pub(crate) m1_enc: Affine<C<S>>,
    pub(crate) m2_enc: Affine<C<S>>,
    pub(crate) proof: CompactProof<C<S>, REQUEST_SCALARS>,
}

/// The client's secrets of one request; consumed by [`RequestState::finalize`]. Zeroized on
/// drop; `Debug` is redacted; not `Clone`.
pub struct RequestState<S: ArcSuite> {
    pub(crate) m1: Scalar<C<S>>,
    pub(crate) r1: Scalar<C<S>>,
    pub(crate) r2: Scalar<C<S>>,
    pub(crate) request: CredentialRequest<S>,
}

impl<S: ArcSuite> Zeroize for RequestState<S> {
    fn zeroize(&mut self) {
        self.m1.zeroize();
        self.r1.zeroize();
        self.r2.zeroize();
    }
}

impl<S: ArcSuite> Drop for RequestState<S> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<S: ArcSuite> ZeroizeOnDrop for RequestState<S> {}

impl<S: ArcSuite> fmt::Debug for RequestState<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RequestState(<redacted>)")
    }
}

/// The output of [`CredentialRequest::new`]: the wire message and the private state.
#[derive(Debug)]
pub struct RequestResult<S: ArcSuite> {
    /// Send this to the server.
    pub message: CredentialRequest<S>,
    /// Keep this to finalize the credential.
    pub state: RequestState<S>,
}

impl<S: ArcSuite> fmt::Debug for CredentialRequest<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::wire::debug_hex(f, "CredentialRequest", &self.to_bytes())
    }
}

fn request_elements<S: ArcSuite>(
    m1_enc: &Affine<C<S>>,
    m2_enc: &Affine<C<S>>,
) -> ([Affine<C<S>>; 4], [Enc<S>; 4]) {
    let d = S::data();
    let pts = [d.g, d.h, *m1_enc, *m2_enc];
    let enc = [
        d.g_enc,
        d.h_enc,
        C::<S>::encode_compressed(m1_enc),
        C::<S>::encode_compressed(m2_enc),
    ];
    (pts, enc)
}

fn request_bases<'a, S: ArcSuite>() -> [Base<'a, C<S>>; 4] {
    [
        Base::Generator,
        Base::Table(&S::data().h_table),
        Base::Variable,
        Base::Variable,
    ]
}

impl<S: ArcSuite> CredentialRequest<S> {
    /// Encoded length, `2 Ne + 5 Ns`.
    pub const LEN: usize = 2 * <C<S> as Curve>::COMPRESSED_LEN + 5 * <C<S> as Curve>::SCALAR_LEN;

    /// `CreateCredentialRequest(requestContext)` (crypto-01 §"Credential Request"): fresh `m1`,
    /// `r1`, `r2`, `m2 = HashToScalar(requestContext, "requestContext")`, the two Pedersen
    /// commitments and the request proof. Heap-free.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for a context longer than [`MAX_CONTEXT_LEN`], before any work;
    /// [`Error::HashToCurve`] if hashing fails.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        request_context: &[u8],
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<RequestResult<S>> {
        Self::new_with(request_context, &mut RngSource(rng))
    }

    pub(crate) fn new_with(
        request_context: &[u8],
        src: &mut impl ScalarSource<C<S>>,
    ) -> Result<RequestResult<S>> {
        crate::stack::arc(|| {
            check_context(request_context)?;
            let m1 = src.random_scalar();
            let r1 = src.random_scalar();
            let r2 = src.random_scalar();
            let m2 = request_context_scalar::<S>(request_context)?;
            let d = S::data();
            super::count::fixed(4);
            let pts = [
                group::mul_generator::<C<S>>(&m1) + d.h_table.mul(&r1),
                group::mul_generator::<C<S>>(&m2) + d.h_table.mul(&r2),
            ];
            let mut commitments = group::normalize_array(&pts);
            // Published: `m1Enc = m1 G + r1 H` and `m2Enc = m2 G + r2 H` are the request;
            // Pedersen commitments, hiding `m1` perfectly. `m1`, `r1`, `r2` stay secret.
            validation::publish(&mut commitments);
            let [m1_enc, m2_enc] = commitments;
            let (points, encodings) = request_elements::<S>(&m1_enc, &m2_enc);
            let bases = request_bases::<S>();
            let elements = Elements {
                points: &points,
                encodings: &encodings,
                bases: &bases,
            };
            let mut witness = [m1, m2, r1, r2];
            let mut nonces: [Scalar<C<S>>; REQUEST_SCALARS] =
                core::array::from_fn(|_| src.proof_nonce());
            let proof = sigma::prove::<C<S>, S::Transcript, REQUEST_SCALARS>(
                &d.request_prefix,
                &statements::request_statement(),
                &elements,
                &witness,
                &nonces,
            );
            witness.zeroize();
            nonces.zeroize();
            let message = CredentialRequest {
                m1_enc,
                m2_enc,
                proof: proof?,
            };
            Ok(RequestResult {
                message,
                state: RequestState {
                    m1,
                    r1,
                    r2,
                    request: message,
                },
            })
        })
    }

    /// Verifies the request proof and rejects `m1Enc`/`m2Enc` equal to `G` or `H`
    /// (identity encodings are rejected by the decoder). Variable time (public data).
    ///
    /// # Errors
    /// [`Error::InvalidProof`].
    pub fn verify(&self) -> Result<()> {
        let d = S::data();
        for p in [&self.m1_enc, &self.m2_enc] {
            if *p == d.g || *p == d.h || bool::from(p.is_identity()) {
                return Err(Error::InvalidProof);
            }
        }
        let (points, encodings) = request_elements::<S>(&self.m1_enc, &self.m2_enc);
        let bases = request_bases::<S>();
        sigma::verify::<C<S>, S::Transcript, REQUEST_SCALARS>(
            &d.request_prefix,
            &statements::request_statement(),
            &Elements {
                points: &points,
                encodings: &encodings,
                bases: &bases,
            },
            &self.proof,
        )
    }

    /// Writes the encoding into `out` (exactly [`Self::LEN`] bytes).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        let mut w = Writer::new(out);
        w.element::<C<S>>(&self.m1_enc)?;
        w.element::<C<S>>(&self.m2_enc)?;
        self.proof.encode_into(w.slot(self.proof.encoded_len())?)?;
        w.finish()
    }

    /// `m1Enc || m2Enc || requestProof`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; Self::LEN];
        let _ = self.encode_into(&mut out);
        out
    }

    /// Strict decoding (points valid and not the identity, scalars canonical, exact length).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let m1_enc = r.element::<C<S>>()?;
        let m2_enc = r.element::<C<S>>()?;
        let proof = CompactProof::decode(
            r.take((1 + REQUEST_SCALARS) * C::<S>::SCALAR_LEN)?,
            REQUEST_SCALARS,
        )?;
        r.finish()?;
        Ok(Self {
            m1_enc,
            m2_enc,
            proof,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Response

/// The server's credential response (crypto-01 §"Credential Response"). Encoding
/// `U || encUPrime || X0Aux || X1Aux || X2Aux || HAux || c || 7 responses` (454 bytes on P-256).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CredentialResponse<S: ArcSuite> {
    pub(crate) u: Affine<C<S>>,
    pub(crate) enc_u_prime: Affine<C<S>>,
    pub(crate) x0_aux: Affine<C<S>>,
    pub(crate) x1_aux: Affine<C<S>>,
    pub(crate) x2_aux: Affine<C<S>>,
    pub(crate) h_aux: Affine<C<S>>,
    pub(crate) proof: CompactProof<C<S>, RESPONSE_SCALARS>,
}

impl<S: ArcSuite> fmt::Debug for CredentialResponse<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::wire::debug_hex(f, "CredentialResponse", &self.to_bytes())
    }
}

fn response_elements<S: ArcSuite>(
    req: &CredentialRequest<S>,
    resp_points: &[Affine<C<S>>; 6],
    pk: &ServerPublicKey<S>,
) -> ([Affine<C<S>>; 13], [Enc<S>; 13]) {
    let d = S::data();
    let [u, enc_u_prime, x0_aux, x1_aux, x2_aux, h_aux] = *resp_points;
    let pts = [
        d.g,
        d.h,
        req.m1_enc,
        req.m2_enc,
        u,
        enc_u_prime,
        pk.x0,
        pk.x1,
        pk.x2,
        x0_aux,
        x1_aux,
        x2_aux,
        h_aux,
    ];
    let mut enc = [Enc::<S>::default(); 13];
    enc[0] = d.g_enc;
    enc[1] = d.h_enc;
    for (e, p) in enc.iter_mut().zip(pts.iter()).skip(2) {
        *e = C::<S>::encode_compressed(p);
    }
    (pts, enc)
}

impl<S: ArcSuite> ServerPrivateKey<S> {
    /// `CreateCredentialResponse` (crypto-01 §"Credential Response"): verifies the request
    /// proof, then with a fresh `b` computes `U = bG`, `encUPrime = b(X0 + x1 m1Enc + x2 m2Enc)`,
    /// `X0Aux = b x0Blinding H`, `X1Aux = b X1`, `X2Aux = b X2`, `HAux = bH` and the response
    /// proof. Constant time in the key and `b`; heap-free.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] if the request does not verify.
    pub fn issue(
        &self,
        request: &CredentialRequest<S>,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<CredentialResponse<S>> {
        self.issue_with(request, &mut RngSource(rng))
    }

    pub(crate) fn issue_with(
        &self,
        request: &CredentialRequest<S>,
        src: &mut impl ScalarSource<C<S>>,
    ) -> Result<CredentialResponse<S>> {
        crate::stack::arc(|| {
            request.verify()?;
            let d = S::data();
            let mut b = src.random_scalar();
            let mut t1 = b * self.x1;
            let mut t2 = b * self.x2;
            let mut bxb = b * self.xb;
            super::count::fixed(6);
            super::count::variable(2);
            let enc_u_prime = self.tables.x0.mul(&b)
                + group::mul_affine::<C<S>>(&request.m1_enc, &t1)
                + group::mul_affine::<C<S>>(&request.m2_enc, &t2);
            let pts: [Point<C<S>>; 6] = [
                group::mul_generator::<C<S>>(&b),
                enc_u_prime,
                d.h_table.mul(&bxb),
                d.h_table.mul(&t1),
                d.h_table.mul(&t2),
                d.h_table.mul(&b),
            ];
            let mut resp_points = group::normalize_array(&pts);
            // Published: `U, encUPrime, X0Aux, X1Aux, X2Aux, HAux` are the response (crypto-01
            // §"Credential Response"). `b`, `b x1`, `b x2`, `b x0Blinding` and the key stay
            // secret; each point is one of them times a public point.
            validation::publish(&mut resp_points);
            let (points, encodings) = response_elements::<S>(request, &resp_points, &self.public);
            // The `HAux` hint borrows `b`, which is wiped below with the other secrets.
            let bases = self.response_bases(&b);
            let mut witness = [self.x0, self.x1, self.x2, self.xb, b, t1, t2];
            let mut nonces: [Scalar<C<S>>; RESPONSE_SCALARS] =
                core::array::from_fn(|_| src.proof_nonce());
            let proof = sigma::prove::<C<S>, S::Transcript, RESPONSE_SCALARS>(
                &d.response_prefix,
                &statements::response_statement(),
                &Elements {
                    points: &points,
                    encodings: &encodings,
                    bases: &bases,
                },
                &witness,
                &nonces,
            );
            witness.zeroize();
            nonces.zeroize();
            for s in [&mut b, &mut t1, &mut t2, &mut bxb] {
                s.zeroize();
            }
            let [u, enc_u_prime, x0_aux, x1_aux, x2_aux, h_aux] = resp_points;
            Ok(CredentialResponse {
                u,
                enc_u_prime,
                x0_aux,
                x1_aux,
                x2_aux,
                h_aux,
                proof: proof?,
            })
        })
    }

    /// Multiplication hints of the response statement; `HAux = b H` is a known representation.
    fn response_bases<'a>(&'a self, b: &'a Scalar<C<S>>) -> [Base<'a, C<S>>; 13] {
        let h = Base::Table(&S::data().h_table);
        [
            Base::Generator,
            h,
            Base::Variable,
            Base::Variable,
            Base::Variable,
            Base::Variable,
            Base::Table(&self.tables.x0),
            Base::Table(&self.tables.x1),
            Base::Table(&self.tables.x2),
            Base::Variable,
            Base::Variable,
            Base::Variable,
            Base::Pedersen {
                g: None,
                h: b,
                h_table: &S::data().h_table,
            },
        ]
    }
}

impl<S: ArcSuite> CredentialResponse<S> {
    /// Encoded length, `6 Ne + 8 Ns`.
    pub const LEN: usize = 6 * <C<S> as Curve>::COMPRESSED_LEN + 8 * <C<S> as Curve>::SCALAR_LEN;

    fn points(&self) -> [Affine<C<S>>; 6] {
        [
            self.u,
            self.enc_u_prime,
            self.x0_aux,
            self.x1_aux,
            self.x2_aux,
            self.h_aux,
        ]
    }

    /// Verifies the response proof against the request and public key. Variable time.
    ///
    /// # Errors
    /// [`Error::InvalidProof`].
    pub fn verify(&self, request: &CredentialRequest<S>, pk: &ServerPublicKey<S>) -> Result<()> {
        let d = S::data();
        let (points, encodings) = response_elements::<S>(request, &self.points(), pk);
        let h = Base::Table(&d.h_table);
        let mut bases = [Base::Variable; 13];
        bases[0] = Base::Generator;
        bases[1] = h;
        sigma::verify::<C<S>, S::Transcript, RESPONSE_SCALARS>(
            &d.response_prefix,
            &statements::response_statement(),
            &Elements {
                points: &points,
                encodings: &encodings,
                bases: &bases,
            },
            &self.proof,
        )
    }

    /// Writes the encoding into `out` (exactly [`Self::LEN`] bytes).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        let mut w = Writer::new(out);
        for p in self.points() {
            w.element::<C<S>>(&p)?;
        }
        self.proof.encode_into(w.slot(self.proof.encoded_len())?)?;
        w.finish()
    }

    /// `U || encUPrime || X0Aux || X1Aux || X2Aux || HAux || responseProof`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; Self::LEN];
        let _ = self.encode_into(&mut out);
        out
    }

    /// Strict decoding.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let u = r.element::<C<S>>()?;
        let enc_u_prime = r.element::<C<S>>()?;
        let x0_aux = r.element::<C<S>>()?;
        let x1_aux = r.element::<C<S>>()?;
        let x2_aux = r.element::<C<S>>()?;
        let h_aux = r.element::<C<S>>()?;
        let proof = CompactProof::decode(
            r.take((1 + RESPONSE_SCALARS) * C::<S>::SCALAR_LEN)?,
            RESPONSE_SCALARS,
        )?;
        r.finish()?;
        Ok(Self {
            u,
            enc_u_prime,
            x0_aux,
            x1_aux,
            x2_aux,
            h_aux,
            proof,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Finalization and the credential

impl<S: ArcSuite> RequestState<S> {
    /// `FinalizeCredential` (crypto-01 §"Finalize Credential"): verifies the response proof and
    /// computes `UPrime = encUPrime - X0Aux - r1 X1Aux - r2 X2Aux`. Constant time in the secrets;
    /// heap-free. On error the state is dropped (zeroized); the request can not be reused.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] if the response does not verify.
    pub fn finalize(
        self,
        pk: &ServerPublicKey<S>,
        response: &CredentialResponse<S>,
    ) -> Result<Credential<S>> {
        crate::stack::arc(|| {
            response.verify(&self.request, pk)?;
            super::count::variable(2);
            let u_prime = Point::<C<S>>::from(response.enc_u_prime)
                - response.x0_aux
                - group::mul_affine::<C<S>>(&response.x1_aux, &self.r1)
                - group::mul_affine::<C<S>>(&response.x2_aux, &self.r2);
            let u_prime = group::to_affine(&u_prime);
            // `UPrime` is part of the credential (secret); the identity, which only a response
            // that fails its proof could give, is refused by design.
            if group::declassify(u_prime.is_identity()) {
                return Err(Error::InvalidProof);
            }
            Ok(Credential {
                key: CredentialKey {
                    m1: self.m1,
                    u: response.u,
                    u_prime,
                    x1: *pk.x1(),
                },
                counters: Vec::new(),
            })
        })
    }
}

/// The key material of a credential, `(m1, U, UPrime, X1)`; `m1` is wiped on drop.
pub(crate) struct CredentialKey<S: ArcSuite> {
    pub(crate) m1: Scalar<C<S>>,
    pub(crate) u: Affine<C<S>>,
    pub(crate) u_prime: Affine<C<S>>,
    pub(crate) x1: Affine<C<S>>,
}

impl<S: ArcSuite> Drop for CredentialKey<S> {
    fn drop(&mut self) {
        self.m1.zeroize();
    }
}

/// The secret key of a legacy nonce permutation, on the heap so that moving its counter (the
/// counters' vector growing) never copies it; wiped on drop.
pub(crate) type PermKey = Box<zeroize::Zeroizing<[u8; 32]>>;

/// The presentation counter of one presentation context, owned by its credential.
pub(crate) struct PresentationCounter<C: Curve> {
    pub(crate) context: Vec<u8>,
    pub(crate) limit: u32,
    /// How many nonces of this context are used (v2: the next nonce; legacy: the next index
    /// into the permutation).
    pub(crate) next: u32,
    /// Legacy suites only: the key of the secret nonce permutation.
    pub(crate) perm_key: Option<PermKey>,
    /// `T = HashToGroup(context, "Tag")`, computed on first use (not stored).
    pub(crate) generator_t: Option<Affine<C>>,
}

/// A credential's key material with the counter of one context and that context's `T`: the
/// body of [`super::PresentationState`] and [`super::LegacyPresentationState`].
pub(crate) struct CounterView<'a, S: ArcSuite> {
    pub(crate) key: &'a CredentialKey<S>,
    pub(crate) counter: &'a mut PresentationCounter<C<S>>,
    pub(crate) generator_t: Affine<C<S>>,
}

impl<S: ArcSuite> CounterView<'_, S> {
    pub(crate) fn limit(&self) -> u32 {
        self.counter.limit
    }

    pub(crate) fn remaining(&self) -> u32 {
        self.counter.limit.saturating_sub(self.counter.next)
    }

    pub(crate) fn context(&self) -> &[u8] {
        &self.counter.context
    }

    /// Consumes the next index of this context: `0, 1, ..., limit - 1`, then
    /// [`Error::LimitExceeded`]. It is consumed before the caller's work, so a failure later on
    /// never hands it out again.
    pub(crate) fn take_next(&mut self) -> Result<u32> {
        let i = self.counter.next;
        if i >= self.counter.limit {
            return Err(Error::LimitExceeded);
        }
        self.counter.next = i + 1;
        Ok(i)
    }
}

/// The accessors of a presentation-state view (a tuple struct around a [`CounterView`]).
macro_rules! state_accessors {
    () => {
        /// The presentation limit.
        pub fn limit(&self) -> u32 {
            self.0.limit()
        }

        /// How many presentations are left.
        pub fn remaining(&self) -> u32 {
            self.0.remaining()
        }

        /// The presentation context.
        pub fn context(&self) -> &[u8] {
            self.0.context()
        }
    };
}

pub(crate) use state_accessors;

/// The largest request or presentation context this crate accepts: 65535 bytes.
///
/// The drafts set no bound; this one keeps hashing and storage bounded and fits a 16-bit length
/// prefix. Longer contexts fail with [`Error::InputTooLong`] before any work.
pub const MAX_CONTEXT_LEN: usize = 0xffff;

pub(crate) fn check_context(context: &[u8]) -> Result<()> {
    if context.len() > MAX_CONTEXT_LEN {
        Err(Error::InputTooLong)
    } else {
        Ok(())
    }
}

/// A credential `(m1, U, UPrime, X1)` (crypto-01 §"Finalize Credential") **together with its
/// presentation state**: one counter per presentation context it has presented for.
///
/// The credential is the only source of presentation states
/// ([`Credential::presentation_state`], [`Credential::legacy_presentation_state`]): asking again
/// for a context continues that context's counter, so a nonce (hence a tag) can never be handed
/// out twice by one `Credential` value. It is deliberately not `Clone`: a copy would be a second,
/// independent counter.
///
/// # What to persist, and when
/// Persist [`Credential::to_bytes`] (or its serde form) — the key material and every
/// context's counter — **after each `present` and before sending the presentation**. A crash
/// between the two then loses at most one presentation instead of reusing a nonce. Restoring an
/// older copy (a backup, a second device, a rolled-back database) rolls the counters back and
/// reuses nonces: the verifier will link the repeated presentations and reject them as double
/// spends. No library can detect a stale copy on its own; keep exactly one live copy.
///
/// Storage format (this crate's; the drafts define none), version 2:
/// `0x02 || suite id (1 byte) || m1 || U || UPrime || X1 || BE32(n) || n counters`, each
/// counter `BE32(limit) || BE32(used) || [permutation key (32 bytes), legacy suites only] ||
/// BE16(len) || presentation context`, in strictly increasing byte order of the contexts.
/// Zeroized on drop (`m1`, permutation keys); `Debug` is redacted.
pub struct Credential<S: ArcSuite> {
    pub(crate) key: CredentialKey<S>,
    /// Sorted by context, no duplicates.
    pub(crate) counters: Vec<PresentationCounter<C<S>>>,
}

impl<S: ArcSuite> Zeroize for Credential<S> {
    fn zeroize(&mut self) {
        self.key.m1.zeroize();
        for c in &mut self.counters {
            if let Some(k) = &mut c.perm_key {
                (**k).zeroize();
            }
        }
    }
}

impl<S: ArcSuite> Drop for Credential<S> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<S: ArcSuite> ZeroizeOnDrop for Credential<S> {}

impl<S: ArcSuite> fmt::Debug for Credential<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credential")
            .field("key", &"<redacted>")
            .field("contexts", &self.counters.len())
            .finish()
    }
}

/// Version byte of the credential storage format.
pub(crate) const CREDENTIAL_FORMAT_VERSION: u8 = 2;

impl<S: ArcSuite> Credential<S> {
    /// Encoded length of the key material, `2 + Ns + 3 Ne`, before the counters.
    const KEY_LEN: usize = 2 + <C<S> as Curve>::SCALAR_LEN + 3 * <C<S> as Curve>::COMPRESSED_LEN;
    /// Encoded length of a counter without its context.
    const COUNTER_FIXED_LEN: usize = 10 + if S::HIDDEN_NONCE { 0 } else { 32 };

    /// The counter of `presentation_context` (created, with the permutation key `perm_key`
    /// for legacy suites, if this credential never presented for it), with the key material and
    /// `T`. Checks every limit before any work.
    pub(crate) fn counter(
        &mut self,
        presentation_context: &[u8],
        limit: u32,
        perm_key: impl FnOnce() -> Option<PermKey>,
    ) -> Result<CounterView<'_, S>> {
        check_context(presentation_context)?;
        super::statements::compute_bases(limit)?;
        let i = match self
            .counters
            .binary_search_by(|c| c.context.as_slice().cmp(presentation_context))
        {
            Ok(i) => i,
            Err(i) => {
                self.counters.insert(
                    i,
                    PresentationCounter {
                        context: presentation_context.to_vec(),
                        limit,
                        next: 0,
                        perm_key: perm_key(),
                        generator_t: None,
                    },
                );
                i
            }
        };
        // Unreachable `None`: `i` is in range.
        let c = self.counters.get_mut(i).ok_or(Error::LimitExceeded)?;
        if c.limit != limit {
            // Another limit would restart (legacy: reshuffle) the nonces of this context.
            return Err(Error::LimitExceeded);
        }
        let t = match c.generator_t {
            Some(t) => t,
            None => {
                let t =
                    group::to_affine(&super::hash_to_group::<S>(&[presentation_context], b"Tag")?);
                c.generator_t = Some(t);
                t
            }
        };
        Ok(CounterView {
            key: &self.key,
            counter: c,
            generator_t: t,
        })
    }

    /// The presentation contexts this credential has presented for, in byte order, each with
    /// its limit and the number of presentations made.
    pub fn contexts(&self) -> impl Iterator<Item = (&[u8], u32, u32)> + '_ {
        self.counters
            .iter()
            .map(|c| (c.context.as_slice(), c.limit, c.next))
    }

    /// Length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        Self::KEY_LEN
            + 4
            + self
                .counters
                .iter()
                .map(|c| Self::COUNTER_FIXED_LEN + c.context.len())
                .sum::<usize>()
    }

    /// The storage encoding (see the type's documentation): the key material and every
    /// presentation counter. Zeroized on drop.
    pub fn to_bytes(&self) -> zeroize::Zeroizing<Vec<u8>> {
        let mut out = zeroize::Zeroizing::new(vec![0u8; self.encoded_len()]);
        let mut w = Writer::new(&mut out);
        let _ = w.put(&[CREDENTIAL_FORMAT_VERSION, S::SUITE_ID]);
        let _ = w.scalar::<C<S>>(&self.key.m1);
        let _ = w.element::<C<S>>(&self.key.u);
        let _ = w.element::<C<S>>(&self.key.u_prime);
        let _ = w.element::<C<S>>(&self.key.x1);
        // The counter count and context lengths fit: contexts are at most 65535 bytes, and
        // each counter takes at least 10 bytes of a `Vec` (so fewer than 2^32 on 32-bit).
        let _ = w.put(&(self.counters.len() as u32).to_be_bytes());
        for c in &self.counters {
            let _ = w.put(&c.limit.to_be_bytes());
            let _ = w.put(&c.next.to_be_bytes());
            if let Some(k) = &c.perm_key {
                let k: &[u8; 32] = k;
                let _ = w.put(k);
            }
            let _ = w.put(&(c.context.len() as u16).to_be_bytes());
            let _ = w.put(&c.context);
        }
        out
    }

    /// Strict decoding of the storage format.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another version or suite, or contexts out of order
    /// (unsorted or repeated); [`Error::LimitExceeded`] for a counter with a limit below 2 or
    /// more presentations than its limit; [`Error::InvalidLength`] for a counter count the
    /// input cannot hold, checked before any allocation; plus the element and scalar decoding
    /// errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        if r.take(2)? != [CREDENTIAL_FORMAT_VERSION, S::SUITE_ID] {
            return Err(Error::UnsupportedValue);
        }
        let m1 = r.nonzero_scalar::<C<S>>()?;
        let key = CredentialKey {
            m1,
            u: r.element::<C<S>>()?,
            u_prime: r.element::<C<S>>()?,
            x1: r.element::<C<S>>()?,
        };
        let n = usize::try_from(r.u32()?).map_err(|_| Error::InvalidLength)?;
        let rest = bytes.len().saturating_sub(Self::KEY_LEN + 4);
        if n > rest / Self::COUNTER_FIXED_LEN {
            return Err(Error::InvalidLength);
        }
        let mut counters: Vec<PresentationCounter<C<S>>> = Vec::with_capacity(n);
        for _ in 0..n {
            let limit = r.u32()?;
            let next = r.u32()?;
            super::statements::compute_bases(limit)?;
            if next > limit {
                return Err(Error::LimitExceeded);
            }
            let perm_key = if S::HIDDEN_NONCE {
                None
            } else {
                let mut k: PermKey = Box::new(zeroize::Zeroizing::new([0u8; 32]));
                k.copy_from_slice(r.take(32)?);
                Some(k)
            };
            let context = r.u16_prefixed()?;
            if counters
                .last()
                .is_some_and(|c| c.context.as_slice() >= context)
            {
                return Err(Error::UnsupportedValue);
            }
            counters.push(PresentationCounter {
                context: context.to_vec(),
                limit,
                next,
                perm_key,
                generator_t: None,
            });
        }
        r.finish()?;
        Ok(Self { key, counters })
    }

    /// The credential's `U`, `UPrime` and `X1` (public values; for tests and storage checks).
    pub fn elements(&self) -> [Vec<u8>; 3] {
        [
            C::<S>::encode_compressed(&self.key.u).as_ref().to_vec(),
            C::<S>::encode_compressed(&self.key.u_prime)
                .as_ref()
                .to_vec(),
            C::<S>::encode_compressed(&self.key.x1).as_ref().to_vec(),
        ]
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(CredentialRequest<S: ArcSuite>);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(CredentialResponse<S: ArcSuite>);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(Credential<S: ArcSuite>);
