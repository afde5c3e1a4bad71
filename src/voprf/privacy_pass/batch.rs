//! Amortized batched issuance (draft-ietf-privacypass-batched-tokens): many tokens under one
//! challenge and key, one DLEQ proof for the whole batch; generic over the [`TokenType`]: the
//! wire messages, the client's state, and the batched methods of [`Client`] and [`Issuer`]
//! (`request_batch`, `issue_batch`, ...), which build on the single-token pieces.

use core::fmt;

use rand_core::CryptoRng;

use super::single::{
    new_state, random_blind, random_nonce, Client, ClientState, Issuer, Token, TokenRequest,
};
use super::token_type::TokenType;
use super::{
    check_token_type, parse_challenge, split_array, token_key_id, NID, NONCE_LEN, TOKEN_INPUT_LEN,
};
use crate::privacy_pass::{varint_decode, varint_encode};
use crate::voprf::{BlindedElement, EvaluationElement, Proof, PublicKey, VoprfClient};
use crate::{Error, Result};

/// The most tokens one batch may hold: the RFC 9497 composite index is a 2-byte integer.
pub const MAX_BATCH: usize = 65535;

/// Reads the `<V>` prefix of a vector of `Ne`-byte elements followed by `tail` more bytes, and
/// checks it before anything is decoded: a whole number of elements, between `min` and `max`
/// of them ([`Error::Batch`] otherwise), and exactly the bytes present. Returns the elements'
/// bytes and the tail.
fn split_elements<T: TokenType>(
    bytes: &[u8],
    min: usize,
    max: usize,
    tail: usize,
) -> Result<(&[u8], &[u8])> {
    let (body_len, rest) = varint_decode(bytes)?;
    if body_len % T::NE != 0 {
        return Err(Error::InvalidLength);
    }
    let n = body_len / T::NE;
    if n == 0 || n < min || n > max {
        return Err(Error::Batch);
    }
    if rest.len() != body_len.saturating_add(tail) {
        return Err(Error::InvalidLength);
    }
    Ok(rest.split_at(body_len))
}

/// Decodes a whole number of `Ne`-byte elements into a vector allocated once.
pub(super) fn decode_elements<T: TokenType, E>(
    body: &[u8],
    decode: fn(&[u8]) -> Result<E>,
) -> Result<Vec<E>> {
    let mut out = Vec::with_capacity(body.len() / T::NE);
    for e in body.chunks_exact(T::NE) {
        out.push(decode(e)?);
    }
    Ok(out)
}

/// A batched token request (draft-ietf-privacypass-batched-tokens, "Amortized Batch Token
/// Request"):
///
/// ```text
/// struct {
///     uint16_t token_type;
///     uint8_t truncated_token_key_id;
///     BlindedElement blinded_elements<V>;   // each uint8_t blinded_element[Ne]
/// } AmortizedBatchTokenRequest;
/// ```
///
/// `<V>` is a QUIC variable-length integer (RFC 9000 §16) giving the length **in bytes** of the
/// concatenated elements, as in the draft and its TLS-presentation-language implementations
/// (pat-go, raphaelrobert/privacypass); pat-go's published vectors for types `0x0001` and
/// `0x0005` are reproduced byte for byte. Decoding accepts only the shortest varint encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchTokenRequest<T: TokenType> {
    pub(super) truncated_token_key_id: u8,
    pub(super) blinded_elements: Vec<BlindedElement<T::Suite>>,
}

impl<T: TokenType> BatchTokenRequest<T> {
    /// A request from its fields (the token type is always `T::TOKEN_TYPE`).
    pub fn new(
        truncated_token_key_id: u8,
        blinded_elements: Vec<BlindedElement<T::Suite>>,
    ) -> Self {
        Self {
            truncated_token_key_id,
            blinded_elements,
        }
    }

    /// Always `T::TOKEN_TYPE`.
    pub fn token_type(&self) -> u16 {
        T::TOKEN_TYPE
    }

    /// The last byte of the issuer's `token_key_id`.
    pub fn truncated_token_key_id(&self) -> u8 {
        self.truncated_token_key_id
    }

    /// The blinded elements, one per token.
    pub fn blinded_elements(&self) -> &[BlindedElement<T::Suite>] {
        &self.blinded_elements
    }

    /// The encoding described on [`BatchTokenRequest`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = self.blinded_elements.len() * T::NE;
        let mut out = Vec::with_capacity(3 + 8 + body);
        out.extend_from_slice(&T::TOKEN_TYPE.to_be_bytes());
        out.push(self.truncated_token_key_id);
        varint_encode(body, &mut out);
        for e in &self.blinded_elements {
            out.extend_from_slice(e.to_bytes().as_ref());
        }
        out
    }

    /// Strict decoding of up to 65535 elements. An issuer should use
    /// [`BatchTokenRequest::from_bytes_with_limit`] or
    /// [`Issuer::issue_batch_from_bytes`](super::generic::Issuer::issue_batch_from_bytes).
    ///
    /// # Errors
    /// As [`BatchTokenRequest::from_bytes_with_limit`] with `max = 65535`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes_with_limit(bytes, u16::MAX)
    }

    /// Strict decoding of at most `max` elements. The token type, the element count and the
    /// total length are checked before any element is decoded, so an over-cap request costs
    /// nothing but reading its first bytes.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type; [`Error::InvalidLength`] for a
    /// truncated or non-minimal length prefix, a vector length that is not a multiple of `Ne`, or
    /// a length that disagrees with the bytes given (truncation, trailing bytes);
    /// [`Error::Batch`] for an empty batch or more than `max` elements; [`Error::InvalidPoint`]
    /// or [`Error::IdentityElement`] for a bad element.
    pub fn from_bytes_with_limit(bytes: &[u8], max: u16) -> Result<Self> {
        let (truncated_token_key_id, body) = Self::split(bytes, max)?;
        Ok(Self {
            truncated_token_key_id,
            blinded_elements: decode_elements::<T, _>(body, BlindedElement::from_bytes)?,
        })
    }

    /// Checks everything but the elements: returns the truncated key id and the elements' bytes.
    pub(super) fn split(bytes: &[u8], max: u16) -> Result<(u8, &[u8])> {
        let rest = check_token_type::<T>(bytes)?;
        let (&[truncated_token_key_id], rest) = split_array::<1>(rest)?;
        let (body, _) = split_elements::<T>(rest, 1, usize::from(max), 0)?;
        Ok((truncated_token_key_id, body))
    }
}

/// A batched token response (draft-ietf-privacypass-batched-tokens, "Amortized Batch Token
/// Response"):
///
/// ```text
/// struct {
///     EvaluatedElement evaluated_elements<V>;   // each uint8_t evaluated_element[Ne]
///     uint8_t evaluated_proof[Ns + Ns];
/// } AmortizedBatchTokenResponse;
/// ```
///
/// `<V>` is encoded as in [`BatchTokenRequest`]. One proof covers every element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchTokenResponse<T: TokenType> {
    pub(super) evaluated_elements: Vec<EvaluationElement<T::Suite>>,
    pub(super) proof: Proof<T::Suite>,
}

impl<T: TokenType> BatchTokenResponse<T> {
    /// A response from its fields.
    pub fn new(
        evaluated_elements: Vec<EvaluationElement<T::Suite>>,
        proof: Proof<T::Suite>,
    ) -> Self {
        Self {
            evaluated_elements,
            proof,
        }
    }

    /// The evaluated elements, in request order.
    pub fn evaluated_elements(&self) -> &[EvaluationElement<T::Suite>] {
        &self.evaluated_elements
    }

    /// The batched DLEQ proof.
    pub fn proof(&self) -> &Proof<T::Suite> {
        &self.proof
    }

    /// The encoding described on [`BatchTokenResponse`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = self.evaluated_elements.len() * T::NE;
        let mut out = Vec::with_capacity(8 + body + 2 * T::NS);
        varint_encode(body, &mut out);
        for e in &self.evaluated_elements {
            out.extend_from_slice(e.to_bytes().as_ref());
        }
        out.extend_from_slice(self.proof.to_bytes().as_ref());
        out
    }

    /// Strict decoding of up to 65535 elements. A client should decode with
    /// [`BatchClientState::response_from_bytes`], which expects exactly the number it asked for.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for a truncated or non-minimal length prefix, a vector length
    /// that is not a multiple of `Ne`, or a wrong total length; [`Error::Batch`] for an empty
    /// batch; element and scalar decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::decode(bytes, 1, MAX_BATCH)
    }

    /// Decoding with between `min` and `max` elements, both checked before any is decoded.
    fn decode(bytes: &[u8], min: usize, max: usize) -> Result<Self> {
        let (body, proof) = split_elements::<T>(bytes, min, max, 2 * T::NS)?;
        Ok(Self {
            evaluated_elements: decode_elements::<T, _>(body, EvaluationElement::from_bytes)?,
            proof: Proof::from_bytes(proof)?,
        })
    }
}

/// The client state of a batched request: one [`ClientState`] per token. Zeroized on drop.
pub struct BatchClientState<T: TokenType> {
    pub(super) states: Vec<ClientState<T>>,
}

impl<T: TokenType> fmt::Debug for BatchClientState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BatchClientState(<{} redacted>)", self.states.len())
    }
}

impl<T: TokenType> BatchClientState<T> {
    /// The number of tokens requested.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether the batch is empty (never, for a state made by
    /// [`Client::request_batch`](super::generic::Client::request_batch)).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Strict decoding of the issuer's [`BatchTokenResponse`] to this request: the element
    /// count must be exactly [`BatchClientState::len`], checked with the total length before any
    /// element is decoded.
    ///
    /// # Errors
    /// [`Error::Batch`] for any other number of elements; otherwise as
    /// [`BatchTokenResponse::from_bytes`].
    pub fn response_from_bytes(&self, bytes: &[u8]) -> Result<BatchTokenResponse<T>> {
        let n = self.states.len();
        BatchTokenResponse::decode(bytes, n, n)
    }

    /// Finalizes every token of the batch: one proof check for the batch, then unblinding
    /// (draft-ietf-privacypass-batched-tokens; RFC 9578 §5.3 per token). Any failure rejects the
    /// whole batch.
    ///
    /// # Errors
    /// [`Error::Batch`] when the response holds a different number of elements than requested;
    /// [`Error::InvalidProof`] when the proof does not verify.
    pub fn finalize_batch(self, response: &BatchTokenResponse<T>) -> Result<Vec<Token<T>>> {
        crate::stack::token(|| {
            let n = self.states.len();
            let public_key = match self.states.first() {
                Some(s) if response.evaluated_elements.len() == n => s.public_key,
                _ => return Err(Error::Batch),
            };
            let inputs: Vec<[u8; TOKEN_INPUT_LEN]> =
                self.states.iter().map(|s| s.token_input()).collect();
            let input_refs: Vec<&[u8]> = inputs.iter().map(|i| i.as_slice()).collect();
            // By reference: every blind is wiped in place when `self.states` drops, on every path.
            let outputs = VoprfClient::finalize_batch_in_place(
                &self.states,
                |s| &s.client,
                &input_refs,
                &response.evaluated_elements,
                &response.proof,
                &public_key,
            )?;
            Ok(self
                .states
                .iter()
                .zip(outputs)
                .map(|(s, out)| s.token(out.as_ref()))
                .collect())
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The batched requests of the client and the batched answers of the issuer

/// `n` tokens for the key with id `key_id`, the `i`-th made by `one(i)`.
fn collect_batch<T: TokenType>(
    key_id: &[u8; NID],
    n: usize,
    mut one: impl FnMut(usize) -> Result<(TokenRequest<T>, ClientState<T>)>,
) -> Result<(BatchTokenRequest<T>, BatchClientState<T>)> {
    if n == 0 || n > MAX_BATCH {
        return Err(Error::Batch);
    }
    let mut blinded_elements = Vec::with_capacity(n);
    let mut states = Vec::with_capacity(n);
    for i in 0..n {
        let (req, st) = one(i)?;
        blinded_elements.push(req.blinded_msg);
        states.push(st);
    }
    Ok((
        BatchTokenRequest {
            truncated_token_key_id: key_id[NID - 1],
            blinded_elements,
        },
        BatchClientState { states },
    ))
}

impl<T: TokenType> Client<T> {
    /// Builds a batched token request for `n` tokens under one challenge and key
    /// (draft-ietf-privacypass-batched-tokens, amortized issuance). Every token gets its own
    /// nonce and blind.
    ///
    /// # Errors
    /// [`Error::Batch`] when `n` is 0 or over 65535; otherwise as [`Client::request`].
    pub fn request_batch(
        public_key: &PublicKey<T::Suite>,
        challenge: &[u8],
        n: usize,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<(BatchTokenRequest<T>, BatchClientState<T>)> {
        crate::stack::token(|| {
            if n == 0 || n > MAX_BATCH {
                return Err(Error::Batch);
            }
            let challenge_digest = parse_challenge::<T>(challenge)?;
            let key_id = token_key_id(public_key);
            // Per token, a nonce and then its blind, from the one RNG.
            collect_batch(&key_id, n, |_| {
                let nonce = random_nonce(rng);
                new_state::<T>(public_key, key_id, challenge_digest, nonce, |input| {
                    random_blind(input, rng)
                })
            })
        })
    }

    /// **Dangerous**: [`Client::request_batch`] with caller-chosen nonces and blinds, one pair
    /// per token, for reproducing published amortized vectors. The same warning as
    /// [`Client::request_with`] applies to every pair.
    ///
    /// # Errors
    /// [`Error::Batch`] when the lists are empty, over 65535 or of different lengths; otherwise
    /// as [`Client::request_with`].
    pub fn request_batch_with(
        public_key: &PublicKey<T::Suite>,
        challenge: &[u8],
        nonces: &[[u8; NONCE_LEN]],
        blinds: &[&[u8]],
    ) -> Result<(BatchTokenRequest<T>, BatchClientState<T>)> {
        if nonces.len() != blinds.len() || nonces.is_empty() || nonces.len() > MAX_BATCH {
            return Err(Error::Batch);
        }
        let challenge_digest = parse_challenge::<T>(challenge)?;
        let key_id = token_key_id(public_key);
        collect_batch(&key_id, nonces.len(), |i| {
            new_state::<T>(public_key, key_id, challenge_digest, nonces[i], |input| {
                crate::hazmat::voprf_blind_with::<T::Suite>(input, blinds[i])
            })
        })
    }
}

impl<T: TokenType> Issuer<T> {
    /// Answers a batched token request with one evaluated element per blinded element and one
    /// proof for the batch (draft-ietf-privacypass-batched-tokens, amortized issuance).
    ///
    /// The request was decoded already, so its elements are paid for; an issuer facing the
    /// network should take the bytes with [`Issuer::issue_batch_from_bytes`] instead.
    ///
    /// # Errors
    /// [`Error::Batch`] when the batch is empty or over [`Issuer::max_batch`] elements (checked
    /// first); [`Error::UnsupportedValue`] when the truncated key id is not this issuer's.
    pub fn issue_batch(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        request: &BatchTokenRequest<T>,
    ) -> Result<BatchTokenResponse<T>> {
        let n = request.blinded_elements.len();
        if n == 0 || n > usize::from(self.max_batch) {
            return Err(Error::Batch);
        }
        self.check_key(request.truncated_token_key_id)?;
        self.evaluate_batch(rng, &request.blinded_elements)
    }

    /// Decodes a batched token request ([`BatchTokenRequest`] encoding) and answers it as
    /// [`Issuer::issue_batch`], doing no work for a request it refuses: the token type, the
    /// element count against [`Issuer::max_batch`], the total length and the truncated key id
    /// are checked before any element is decoded.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type or another key id; [`Error::Batch`]
    /// for an empty batch or one over [`Issuer::max_batch`]; [`Error::InvalidLength`] for a
    /// malformed length, a length that disagrees with the bytes given, or trailing bytes;
    /// element decoding errors ([`Error::InvalidPoint`], [`Error::IdentityElement`]).
    pub fn issue_batch_from_bytes(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        request: &[u8],
    ) -> Result<BatchTokenResponse<T>> {
        let (truncated, body) = BatchTokenRequest::<T>::split(request, self.max_batch)?;
        self.check_key(truncated)?;
        self.evaluate_batch(
            rng,
            &decode_elements::<T, _>(body, BlindedElement::from_bytes)?,
        )
    }

    fn evaluate_batch(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        blinded: &[BlindedElement<T::Suite>],
    ) -> Result<BatchTokenResponse<T>> {
        let eval = self.server.blind_evaluate_batch(rng, blinded)?;
        Ok(BatchTokenResponse {
            evaluated_elements: eval.messages,
            proof: eval.proof,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voprf::privacy_pass::generic::Client;
    use crate::voprf::privacy_pass::single::tests::{challenge, issuer};
    use crate::voprf::privacy_pass::{Type1, Type5};

    /// A batch request's accessors, its state's `Debug` and length, and a response decoded
    /// against that state only with exactly as many elements as the request.
    fn batch_accessors<T: TokenType>() {
        let mut rng = rand::rng();
        let issuer = issuer::<T>(&mut rng);
        let challenge = challenge::<T>();
        let pk = issuer.public_key();
        let (req, st) = Client::<T>::request_batch(pk, &challenge, 3, &mut rng).unwrap();
        assert_eq!(req.token_type(), T::TOKEN_TYPE);
        assert_eq!(
            req.truncated_token_key_id(),
            issuer.truncated_token_key_id()
        );
        assert_eq!(req.blinded_elements().len(), 3);
        assert_eq!((st.len(), st.is_empty()), (3, false));
        assert_eq!(format!("{st:?}"), "BatchClientState(<3 redacted>)");
        let resp = issuer.issue_batch(&mut rng, &req).unwrap();
        assert_eq!(resp.evaluated_elements().len(), 3);
        assert!(st.response_from_bytes(&resp.to_bytes()).is_ok());
        for n in [2, 4] {
            let (other, _) = Client::<T>::request_batch(pk, &challenge, n, &mut rng).unwrap();
            let bytes = issuer.issue_batch(&mut rng, &other).unwrap().to_bytes();
            assert_eq!(
                st.response_from_bytes(&bytes).unwrap_err(),
                Error::Batch,
                "{n}"
            );
            // The plain decoder takes any size; finalizing refuses one that is not the request's.
            let wrong = BatchTokenResponse::<T>::from_bytes(&bytes).unwrap();
            let (_, st3) = Client::<T>::request_batch(pk, &challenge, 3, &mut rng).unwrap();
            assert_eq!(st3.finalize_batch(&wrong).unwrap_err(), Error::Batch, "{n}");
        }
        assert_eq!(st.finalize_batch(&resp).unwrap().len(), 3);
        let empty = BatchClientState::<T> { states: Vec::new() };
        assert_eq!((empty.len(), empty.is_empty()), (0, true));
    }

    #[test]
    fn batch_accessors_type1() {
        batch_accessors::<Type1>();
    }

    #[test]
    fn batch_accessors_type5() {
        batch_accessors::<Type5>();
    }
}
