//! One token per request (RFC 9578 §5): the wire messages, the client and the issuer, generic
//! over the [`TokenType`].

use core::fmt;
use core::marker::PhantomData;

use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::token_type::{Bytes, TokenType};
use super::{
    check_token_type, parse_challenge, split_array, token_input, token_key_id, NID, NONCE_LEN,
    TOKEN_INPUT_LEN,
};
use crate::group::validation;
use crate::voprf::{
    BlindResult, BlindedElement, EvaluationElement, Proof, PublicKey, SecretKey, VoprfClient,
    VoprfServer,
};
use crate::{Error, Result, Suite};

// ---------------------------------------------------------------------------------------------
// Wire messages

/// A client's token request (RFC 9578 §5.1), `T::TOKEN_REQUEST_LEN` bytes (52 for type
/// `0x0001`, 35 for `0x0005`):
///
/// ```text
/// struct {
///     uint16_t token_type;
///     uint8_t truncated_token_key_id;
///     uint8_t blinded_msg[Ne];
/// } TokenRequest;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenRequest<T: TokenType> {
    pub(super) truncated_token_key_id: u8,
    pub(super) blinded_msg: BlindedElement<T::Suite>,
}

impl<T: TokenType> TokenRequest<T> {
    /// A request from its fields (the token type is always `T::TOKEN_TYPE`).
    pub fn new(truncated_token_key_id: u8, blinded_msg: BlindedElement<T::Suite>) -> Self {
        Self {
            truncated_token_key_id,
            blinded_msg,
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

    /// The blinded element `blinded_msg`.
    pub fn blinded_msg(&self) -> &BlindedElement<T::Suite> {
        &self.blinded_msg
    }

    /// The encoding of RFC 9578 §5.1.
    pub fn to_bytes(&self) -> T::RequestBytes {
        let mut out = T::RequestBytes::zeroed();
        let o = out.as_mut();
        o[..2].copy_from_slice(&T::TOKEN_TYPE.to_be_bytes());
        o[2] = self.truncated_token_key_id;
        o[3..].copy_from_slice(self.blinded_msg.to_bytes().as_ref());
        out
    }

    /// Strict decoding (RFC 9578 §5.2: the issuer checks the type, then the size of
    /// `blinded_msg`, then deserializes it).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] unless exactly `T::TOKEN_REQUEST_LEN` bytes;
    /// [`Error::UnsupportedValue`] for another token type; [`Error::InvalidPoint`] or
    /// [`Error::IdentityElement`] for a bad `blinded_msg`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let rest = check_token_type::<T>(bytes)?;
        if bytes.len() != T::TOKEN_REQUEST_LEN {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            truncated_token_key_id: rest[0],
            blinded_msg: BlindedElement::from_bytes(&rest[1..])?,
        })
    }
}

/// An issuer's token response (RFC 9578 §5.2), `T::TOKEN_RESPONSE_LEN` bytes (145 for type
/// `0x0001`, 96 for `0x0005`):
///
/// ```text
/// struct {
///     uint8_t evaluate_msg[Ne];
///     uint8_t evaluate_proof[Ns+Ns];
/// } TokenResponse;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenResponse<T: TokenType> {
    pub(super) evaluate_msg: EvaluationElement<T::Suite>,
    pub(super) evaluate_proof: Proof<T::Suite>,
}

impl<T: TokenType> TokenResponse<T> {
    /// A response from its fields.
    pub fn new(evaluate_msg: EvaluationElement<T::Suite>, evaluate_proof: Proof<T::Suite>) -> Self {
        Self {
            evaluate_msg,
            evaluate_proof,
        }
    }

    /// The evaluated element `evaluate_msg`.
    pub fn evaluate_msg(&self) -> &EvaluationElement<T::Suite> {
        &self.evaluate_msg
    }

    /// The DLEQ proof `evaluate_proof`.
    pub fn evaluate_proof(&self) -> &Proof<T::Suite> {
        &self.evaluate_proof
    }

    /// The encoding of RFC 9578 §5.2.
    pub fn to_bytes(&self) -> T::ResponseBytes {
        let mut out = T::ResponseBytes::zeroed();
        let o = out.as_mut();
        o[..T::NE].copy_from_slice(self.evaluate_msg.to_bytes().as_ref());
        o[T::NE..].copy_from_slice(self.evaluate_proof.to_bytes().as_ref());
        out
    }

    /// Strict decoding (RFC 9578 §5.3: the client aborts on any deserialization failure).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] unless exactly `T::TOKEN_RESPONSE_LEN` bytes;
    /// [`Error::InvalidPoint`] or [`Error::IdentityElement`] for a bad element;
    /// [`Error::NonCanonicalScalar`] for a bad proof scalar.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != T::TOKEN_RESPONSE_LEN {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            evaluate_msg: EvaluationElement::from_bytes(&bytes[..T::NE])?,
            evaluate_proof: Proof::from_bytes(&bytes[T::NE..])?,
        })
    }
}

/// A finalized token (RFC 9578 §5.3, structure of RFC 9577 §2.2), `T::TOKEN_LEN` bytes (146 for
/// type `0x0001`, 162 for `0x0005`):
///
/// ```text
/// struct {
///     uint16_t token_type;
///     uint8_t nonce[32];
///     uint8_t challenge_digest[32];
///     uint8_t token_key_id[32];
///     uint8_t authenticator[Nk];
/// } Token;
/// ```
///
/// The fields carry no invariant, so they are public; the token type is implied by `T`.
///
/// A token is a bearer secret until it is redeemed: whoever holds its bytes can spend it. So
/// equality is constant time ([`ConstantTimeEq`], and `==` goes through it), `Debug` redacts
/// the authenticator, and there is deliberately no `Hash` (a hash table keyed on tokens would
/// compare them with variable-time code). A double-spend store should key on [`Token::nonce`],
/// which the origin learns at redemption anyway.
pub struct Token<T: TokenType> {
    /// The client's random nonce.
    pub nonce: [u8; NONCE_LEN],
    /// `SHA-256(TokenChallenge)`.
    pub challenge_digest: [u8; 32],
    /// `SHA-256(SerializeElement(pkI))`.
    pub token_key_id: [u8; NID],
    /// The VOPRF output over the token input, `Nk` bytes.
    pub authenticator: T::Authenticator,
}

impl<T: TokenType> Clone for Token<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: TokenType> Copy for Token<T> {}

impl<T: TokenType> ConstantTimeEq for Token<T> {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.nonce.ct_eq(&other.nonce)
            & self.challenge_digest.ct_eq(&other.challenge_digest)
            & self.token_key_id.ct_eq(&other.token_key_id)
            & self
                .authenticator
                .as_ref()
                .ct_eq(other.authenticator.as_ref())
    }
}

/// Constant time, through [`ConstantTimeEq`].
impl<T: TokenType> PartialEq for Token<T> {
    fn eq(&self, other: &Self) -> bool {
        bool::from(self.ct_eq(other))
    }
}

impl<T: TokenType> Eq for Token<T> {}

/// Overwrites every field with zeros. A token is `Copy` (so it is not wiped on drop); a holder
/// that keeps one until it is spent, such as a binding's token handle, wipes it with this, or
/// keeps it in `zeroize::Zeroizing`.
impl<T: TokenType> Zeroize for Token<T> {
    fn zeroize(&mut self) {
        self.nonce.zeroize();
        self.challenge_digest.zeroize();
        self.token_key_id.zeroize();
        self.authenticator.as_mut().zeroize();
    }
}

/// The nonce, challenge digest and key id in hex; the authenticator is redacted.
impl<T: TokenType> fmt::Debug for Token<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token { ")?;
        crate::voprf::codec::debug_hex(f, "nonce", &self.nonce)?;
        crate::voprf::codec::debug_hex(f, ", challenge_digest", &self.challenge_digest)?;
        crate::voprf::codec::debug_hex(f, ", token_key_id", &self.token_key_id)?;
        f.write_str(", authenticator(<redacted>) }")
    }
}

impl<T: TokenType> Token<T> {
    /// Always `T::TOKEN_TYPE`.
    pub fn token_type(&self) -> u16 {
        T::TOKEN_TYPE
    }

    /// `token_input = token_type || nonce || challenge_digest || token_key_id`, the VOPRF input
    /// (RFC 9578 §5.1, §5.5).
    pub fn token_input(&self) -> [u8; TOKEN_INPUT_LEN] {
        token_input::<T>(&self.nonce, &self.challenge_digest, &self.token_key_id)
    }

    /// The encoding of RFC 9577 §2.2.
    pub fn to_bytes(&self) -> T::TokenBytes {
        let mut out = T::TokenBytes::zeroed();
        let o = out.as_mut();
        o[..TOKEN_INPUT_LEN].copy_from_slice(&self.token_input());
        o[TOKEN_INPUT_LEN..].copy_from_slice(self.authenticator.as_ref());
        out
    }

    /// Strict decoding (RFC 9577 §2.2).
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type; [`Error::InvalidLength`] unless
    /// exactly `T::TOKEN_LEN` bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let rest = check_token_type::<T>(bytes)?;
        if bytes.len() != T::TOKEN_LEN {
            return Err(Error::InvalidLength);
        }
        let (nonce, rest) = split_array::<NONCE_LEN>(rest)?;
        let (challenge_digest, rest) = split_array::<32>(rest)?;
        let (token_key_id, rest) = split_array::<NID>(rest)?;
        let mut authenticator = T::Authenticator::zeroed();
        authenticator.as_mut().copy_from_slice(rest);
        Ok(Self {
            nonce: *nonce,
            challenge_digest: *challenge_digest,
            token_key_id: *token_key_id,
            authenticator,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Client

/// The client role of the issuance protocol (RFC 9578 §5.1, §5.3), for token type `T`.
pub struct Client<T: TokenType>(PhantomData<T>);

impl<T: TokenType> Clone for Client<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: TokenType> Copy for Client<T> {}

impl<T: TokenType> Default for Client<T> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<T: TokenType> fmt::Debug for Client<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Client<{:?}>", T::default())
    }
}

/// What a client keeps between [`Client::request`] and [`ClientState::finalize`]: the VOPRF
/// blind, the nonce and the challenge and key bindings. Consumed by `finalize`; zeroized on drop.
///
/// The blind stays in place until the state is dropped, where it is wiped: `finalize` reads it
/// without moving it out, so no path (success, failure, drop) leaves a copy in this memory.
pub struct ClientState<T: TokenType> {
    pub(super) client: VoprfClient<T::Suite>,
    pub(super) nonce: [u8; NONCE_LEN],
    pub(super) challenge_digest: [u8; 32],
    pub(super) token_key_id: [u8; NID],
    pub(super) public_key: PublicKey<T::Suite>,
}

impl<T: TokenType> fmt::Debug for ClientState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientState(<redacted>)")
    }
}

impl<T: TokenType> Drop for ClientState<T> {
    fn drop(&mut self) {
        // `client` is never moved out, so its own `ZeroizeOnDrop`, which runs right after this,
        // wipes the blind where it lies.
        self.nonce.zeroize();
        self.challenge_digest.zeroize();
        self.token_key_id.zeroize();
    }
}

impl<T: TokenType> ClientState<T> {
    /// The token this state will finalize to, with `authenticator` as its output.
    pub(super) fn token(&self, authenticator: &[u8]) -> Token<T> {
        let mut a = T::Authenticator::zeroed();
        a.as_mut().copy_from_slice(authenticator);
        Token {
            nonce: self.nonce,
            challenge_digest: self.challenge_digest,
            token_key_id: self.token_key_id,
            authenticator: a,
        }
    }

    /// `token_input` of this state's token.
    pub(super) fn token_input(&self) -> [u8; TOKEN_INPUT_LEN] {
        token_input::<T>(&self.nonce, &self.challenge_digest, &self.token_key_id)
    }
}

/// The state of one token for a parsed challenge (`challenge_digest`) and the issuer key
/// `public_key` with id `key_id`.
pub(super) fn new_state<T: TokenType>(
    public_key: &PublicKey<T::Suite>,
    key_id: [u8; NID],
    challenge_digest: [u8; 32],
    nonce: [u8; NONCE_LEN],
    blind: impl FnOnce(&[u8]) -> Result<BlindResult<VoprfClient<T::Suite>, T::Suite>>,
) -> Result<(TokenRequest<T>, ClientState<T>)> {
    let input = token_input::<T>(&nonce, &challenge_digest, &key_id);
    let blinded = blind(&input)?;
    let request = TokenRequest {
        truncated_token_key_id: key_id[NID - 1],
        blinded_msg: blinded.message,
    };
    Ok((
        request,
        ClientState {
            client: blinded.state,
            nonce,
            challenge_digest,
            token_key_id: key_id,
            public_key: *public_key,
        },
    ))
}

/// `Blind(input)` with a fresh random blind. The callers' bodies run on a wiped stack
/// (`crate::stack`): blinding without the public `blind`'s own wipe, once per request rather
/// than once per token. The token input has a fixed length, so `blind`'s length check cannot
/// fail here.
pub(super) fn random_blind<S: Suite>(
    input: &[u8],
    rng: &mut (impl CryptoRng + ?Sized),
) -> Result<BlindResult<VoprfClient<S>, S>> {
    VoprfClient::blind_with_scalar(
        input,
        <S::Group as crate::group::PrimeGroup>::random_scalar(rng),
    )
}

pub(super) fn random_nonce(rng: &mut (impl CryptoRng + ?Sized)) -> [u8; NONCE_LEN] {
    let mut nonce = [0u8; NONCE_LEN];
    rng.fill_bytes(&mut nonce);
    nonce
}

impl<T: TokenType> Client<T> {
    /// Builds a token request for the issuer key `public_key` and the serialized
    /// `TokenChallenge` `challenge` (RFC 9578 §5.1): a random 32-byte nonce,
    /// `challenge_digest = SHA-256(challenge)`, and `Blind(token_input)`.
    ///
    /// # Errors
    /// Challenge decoding errors of [`TokenChallenge::from_bytes`](super::TokenChallenge::from_bytes);
    /// [`Error::UnsupportedValue`] when the challenge asks for another token type;
    /// [`Error::InvalidInput`] if the token input hashes to the identity (negligible).
    pub fn request(
        public_key: &PublicKey<T::Suite>,
        challenge: &[u8],
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<(TokenRequest<T>, ClientState<T>)> {
        crate::stack::token(|| {
            // The challenge is checked before any randomness is drawn.
            let challenge_digest = parse_challenge::<T>(challenge)?;
            let nonce = random_nonce(rng);
            new_state::<T>(
                public_key,
                token_key_id(public_key),
                challenge_digest,
                nonce,
                |input| random_blind(input, rng),
            )
        })
    }

    /// **Dangerous**: [`Client::request`] with a caller-chosen `nonce` and VOPRF `blind`
    /// (`SerializeScalar` bytes, `Ns` of them), for reproducing published vectors (RFC 9578
    /// Appendix A.1, pat-go's).
    ///
    /// Both values must be fresh and uniformly random in real use: a reused or predictable
    /// blind links the request to the redeemed token, and a reused nonce lets the origin reject
    /// the token as a replay. Use [`Client::request`] in applications.
    ///
    /// # Errors
    /// As [`Client::request`]; scalar decoding errors ([`Error::InvalidLength`],
    /// [`Error::NonCanonicalScalar`], [`Error::ZeroScalar`]) for `blind`.
    pub fn request_with(
        public_key: &PublicKey<T::Suite>,
        challenge: &[u8],
        nonce: &[u8; NONCE_LEN],
        blind: &[u8],
    ) -> Result<(TokenRequest<T>, ClientState<T>)> {
        let challenge_digest = parse_challenge::<T>(challenge)?;
        new_state::<T>(
            public_key,
            token_key_id(public_key),
            challenge_digest,
            *nonce,
            |input| crate::hazmat::voprf_blind_with::<T::Suite>(input, blind),
        )
    }
}

impl<T: TokenType> ClientState<T> {
    /// Finalizes the token (RFC 9578 §5.3): verifies the issuer's proof against the key the
    /// request was made for, unblinds, and builds the token with
    /// `authenticator = Finalize(token_input, blind, evaluate_msg, blinded_msg, pkI, proof)`.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] when the proof does not verify.
    pub fn finalize(self, response: &TokenResponse<T>) -> Result<Token<T>> {
        crate::stack::token(|| {
            let input = self.token_input();
            // By reference: the blind is wiped in place when `self` drops, on every path.
            let out = self.client.finalize_in_place(
                &input,
                &response.evaluate_msg,
                &response.evaluate_proof,
                &self.public_key,
            )?;
            Ok(self.token(out.as_ref()))
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Issuer

/// The issuer role of the issuance protocol (RFC 9578 §5.2) and the verifier of its tokens
/// (RFC 9578 §5.5), for token type `T`.
///
/// Batched (amortized) issuance is capped at [`Issuer::max_batch`] tokens per request
/// ([`DEFAULT_MAX_BATCH`](super::DEFAULT_MAX_BATCH) unless set with [`Issuer::with_max_batch`]).
/// Feed request bodies to [`Issuer::issue_batch_from_bytes`], which refuses an over-cap request
/// before decoding any element.
#[derive(Clone, Debug)]
pub struct Issuer<T: TokenType> {
    pub(super) server: VoprfServer<T::Suite>,
    pub(super) token_key_id: [u8; NID],
    pub(super) max_batch: u16,
}

impl<T: TokenType> Issuer<T> {
    /// An issuer with the key pair of a VOPRF-mode server of the type's suite (RFC 9578 §6.5
    /// recommends `VoprfServer::derive(seed, b"PrivacyPass")`), with the batch cap
    /// [`DEFAULT_MAX_BATCH`](super::DEFAULT_MAX_BATCH).
    pub fn new(server: VoprfServer<T::Suite>) -> Self {
        let token_key_id = token_key_id(server.public_key());
        Self {
            server,
            token_key_id,
            max_batch: super::DEFAULT_MAX_BATCH,
        }
    }

    /// This issuer with at most `max` tokens per batched request. `0` refuses every batched
    /// request; `u16::MAX` is the protocol's own limit ([`MAX_BATCH`](super::MAX_BATCH)). Each token costs the
    /// issuer 0.3 to 0.45 ms of CPU on P-384 (see
    /// [`DEFAULT_MAX_BATCH`](super::DEFAULT_MAX_BATCH)).
    #[must_use]
    pub fn with_max_batch(mut self, max: u16) -> Self {
        self.max_batch = max;
        self
    }

    /// The most tokens one batched request may ask for.
    pub fn max_batch(&self) -> u16 {
        self.max_batch
    }

    /// An issuer with the secret key `skI`.
    pub fn from_secret_key(key: SecretKey<T::Suite>) -> Self {
        Self::new(VoprfServer::from_secret_key(key))
    }

    /// The public key `pkI` clients request tokens for.
    pub fn public_key(&self) -> &PublicKey<T::Suite> {
        self.server.public_key()
    }

    /// `token_key_id = SHA-256(SerializeElement(pkI))` (RFC 9578 §5).
    pub fn token_key_id(&self) -> &[u8; NID] {
        &self.token_key_id
    }

    /// The last byte of [`Issuer::token_key_id`], as carried in requests (RFC 9578 §5.1).
    pub fn truncated_token_key_id(&self) -> u8 {
        self.token_key_id[NID - 1]
    }

    /// The underlying VOPRF server.
    pub fn server(&self) -> &VoprfServer<T::Suite> {
        &self.server
    }

    pub(super) fn check_key(&self, truncated: u8) -> Result<()> {
        if truncated != self.truncated_token_key_id() {
            return Err(Error::UnsupportedValue);
        }
        Ok(())
    }

    /// Answers a token request (RFC 9578 §5.2): checks the truncated key id, then
    /// `BlindEvaluate(skI, pkI, blinded_msg)`. The token type and `blinded_msg` were checked by
    /// [`TokenRequest::from_bytes`]. RFC 9578 maps every failure to HTTP 422.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when the truncated key id is not this issuer's.
    pub fn issue(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        request: &TokenRequest<T>,
    ) -> Result<TokenResponse<T>> {
        self.check_key(request.truncated_token_key_id)?;
        let eval = self.server.blind_evaluate(rng, &request.blinded_msg)?;
        Ok(TokenResponse {
            evaluate_msg: eval.message,
            evaluate_proof: eval.proof,
        })
    }

    /// Verifies a token (RFC 9578 §5.5): `Evaluate(skI, token_input) == authenticator`,
    /// compared in constant time.
    ///
    /// These tokens are privately verifiable, so this is also the origin's check: an origin
    /// verifies with the issuer's key (or asks the issuer). It does not detect replays; the
    /// caller must also reject nonces it has seen, and check `challenge_digest` against the
    /// challenge it sent.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when `token_key_id` is not this issuer's;
    /// [`Error::InvalidInput`] if the token input hashes to the identity (negligible).
    pub fn verify_token(&self, token: &Token<T>) -> Result<bool> {
        if token.token_key_id != self.token_key_id {
            return Err(Error::UnsupportedValue);
        }
        let out = self.server.evaluate(&token.token_input())?;
        let mut valid = out.as_slice().ct_eq(token.authenticator.as_ref());
        // Published: the verdict is the answer to the token's holder (accepted or refused).
        // `out` stays secret: for a token this issuer did not sign it is the authenticator a
        // forger is missing.
        validation::publish(&mut valid);
        Ok(bool::from(valid))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::voprf::privacy_pass::{TokenChallenge, Type1, Type5, MAX_BATCH};
    use sha2::Digest;

    /// An issuer whose truncated key id is neither 0 nor 1, so that an accessor returning a
    /// constant cannot pass for it.
    pub(in crate::voprf::privacy_pass) fn issuer<T: TokenType>(
        rng: &mut impl CryptoRng,
    ) -> Issuer<T> {
        loop {
            let issuer = Issuer::<T>::new(VoprfServer::new(rng));
            if issuer.truncated_token_key_id() > 1 {
                return issuer;
            }
        }
    }

    pub(in crate::voprf::privacy_pass) fn challenge<T: TokenType>() -> Vec<u8> {
        TokenChallenge::new(T::TOKEN_TYPE, b"issuer.example".to_vec(), vec![], vec![])
            .unwrap()
            .to_bytes()
    }

    /// `token_type || nonce || challenge_digest || token_key_id`, written out.
    fn input_of(nonce: &[u8], digest: &[u8], key_id: &[u8], token_type: u16) -> Vec<u8> {
        [&token_type.to_be_bytes()[..], nonce, digest, key_id].concat()
    }

    /// Every accessor of a request, state, response and token of type `T` against the values
    /// it must return, the redacted `Debug` forms, and a token that the issuer accepts, whose
    /// equality sees every field.
    fn accessors<T: TokenType>() {
        let mut rng = rand::rng();
        let issuer = issuer::<T>(&mut rng).with_max_batch(7);
        assert_eq!(issuer.max_batch(), 7);
        let key_id = super::token_key_id(issuer.public_key());
        assert_eq!(issuer.token_key_id(), &key_id);
        assert_eq!(issuer.truncated_token_key_id(), key_id[NID - 1]);
        let challenge = challenge::<T>();
        let digest: [u8; 32] = sha2::Sha256::digest(&challenge).into();

        let (req, st) = Client::<T>::request(issuer.public_key(), &challenge, &mut rng).unwrap();
        assert_eq!(req.token_type(), T::TOKEN_TYPE);
        assert_eq!(
            req.truncated_token_key_id(),
            issuer.truncated_token_key_id()
        );
        assert_eq!(st.challenge_digest, digest);
        assert_eq!(st.token_key_id, key_id);
        assert!(st.nonce != [0; NONCE_LEN] && st.nonce != [1; NONCE_LEN]);
        let (_, other) = Client::<T>::request(issuer.public_key(), &challenge, &mut rng).unwrap();
        assert_ne!(st.nonce, other.nonce, "each request draws its own nonce");
        let input = input_of(&st.nonce, &digest, &key_id, T::TOKEN_TYPE);
        assert_eq!(st.token_input()[..], input[..]);
        assert_eq!(format!("{st:?}"), "ClientState(<redacted>)");
        assert_eq!(
            format!("{:?}", Client::<T>::default()),
            format!("Client<{:?}>", T::default())
        );

        let resp = issuer.issue(&mut rng, &req).unwrap();
        let nonce = st.nonce;
        let token = st.finalize(&resp).unwrap();
        assert_eq!(token.token_type(), T::TOKEN_TYPE);
        assert_eq!(token.nonce, nonce);
        assert_eq!(token.token_input()[..], input[..]);
        assert_eq!(issuer.verify_token(&token), Ok(true));
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(
            format!("{token:?}"),
            format!(
                "Token {{ nonce({}), challenge_digest({}), token_key_id({}), \
                 authenticator(<redacted>) }}",
                hex(&nonce),
                hex(&digest),
                hex(&key_id)
            )
        );

        // Equality: the same token, then each field changed alone.
        let copy = token;
        assert!(token == copy);
        let mut changed = [token; 4];
        changed[0].nonce[0] ^= 1;
        changed[1].challenge_digest[0] ^= 1;
        changed[2].token_key_id[0] ^= 1;
        changed[3].authenticator.as_mut()[0] ^= 1;
        for (i, c) in changed.iter().enumerate() {
            assert!(token != *c, "field {i}");
        }
        assert_eq!(issuer.verify_token(&changed[0]), Ok(false));
        assert_eq!(issuer.verify_token(&changed[3]), Ok(false));
        assert_eq!(
            issuer.verify_token(&changed[2]),
            Err(Error::UnsupportedValue)
        );
    }

    /// The batch size limits at their edges, on the quick ristretto255 type: 65535 tokens are
    /// one request, 0 and 65536 are refused before any work, and the caller-chosen variant
    /// refuses lists of different lengths.
    #[test]
    fn batch_limits_at_the_edges() {
        let mut rng = rand::rng();
        let issuer = Issuer::<Type5>::new(VoprfServer::new(&mut rng));
        let (pk, c) = (issuer.public_key(), challenge::<Type5>());
        let (req, st) = Client::<Type5>::request_batch(pk, &c, MAX_BATCH, &mut rng).unwrap();
        assert_eq!(
            (req.blinded_elements().len(), st.len()),
            (MAX_BATCH, MAX_BATCH)
        );
        for n in [0, MAX_BATCH + 1] {
            let err = Client::<Type5>::request_batch(pk, &c, n, &mut rng).unwrap_err();
            assert_eq!(err, Error::Batch, "{n}");
        }
        let blind = [1u8; 32];
        let nonces = vec![[7u8; NONCE_LEN]; 3];
        let r = Client::<Type5>::request_batch_with(pk, &c, &nonces, &[&blind[..]; 2]);
        assert_eq!(r.unwrap_err(), Error::Batch);
        let r = Client::<Type5>::request_batch_with(pk, &c, &nonces, &[&blind[..]; 3]);
        assert_eq!(r.unwrap().0.blinded_elements().len(), 3);
        let many = vec![[7u8; NONCE_LEN]; MAX_BATCH + 1];
        let blinds = vec![&blind[..]; MAX_BATCH + 1];
        let r = Client::<Type5>::request_batch_with(pk, &c, &many, &blinds);
        assert_eq!(r.unwrap_err(), Error::Batch);
        let (m, b) = (&many[..MAX_BATCH], &blinds[..MAX_BATCH]);
        let r = Client::<Type5>::request_batch_with(pk, &c, m, b);
        assert_eq!(r.unwrap().1.len(), MAX_BATCH);
    }

    #[test]
    fn accessors_type1() {
        accessors::<Type1>();
    }

    #[test]
    fn accessors_type5() {
        accessors::<Type5>();
    }
}
