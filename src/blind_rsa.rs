//! RSA blind signatures (RFC 9474, RSABSSA) and partially blind RSA signatures with public
//! metadata (draft-irtf-cfrg-partially-blind-rsa-02, RSAPBSSA): the signatures behind Privacy
//! Pass token types `0x0002` and `0xDA7A`.
//!
//! Every variant of RFC 9474 §5 is a [`Variant`]: SHA-384, MGF1-SHA-384, a 48-byte salt (PSS)
//! or none (PSSZERO), and a 32-byte random prefix on the message (Randomized) or none
//! (Deterministic). Keys are 2048 to 4096 bits.
//!
//! - The **client** prepares its message ([`prepare`]), blinds it with the signer's
//!   [`PublicKey::blind`] (keeping the one-shot [`BlindingState`]) and turns the signer's answer
//!   into a signature with [`BlindingState::finalize`], which verifies it.
//! - The **signer** answers with [`SecretKey::blind_sign`]: the private operation by CRT,
//!   constant time (it runs on a value the client chose), checked against the public operation
//!   before it answers (a fault in either half would otherwise reveal a factor of `n`).
//! - Anyone **verifies** with [`PublicKey::verify`].
//!
//! Partially blind signatures bind public metadata `info`: the same functions with `_with_info`
//! (or the derived keys of [`PublicKey::derive`] and [`SecretKey::derive`]); their keys need
//! safe primes ([`SecretKey::generate`] with `safe_primes`).
//!
//! ```
//! use privacy_tokens::blind_rsa::{prepare, SecretKey, Variant};
//!
//! let mut rng = rand::rng();
//! # let sk = privacy_tokens::blind_rsa::test_key()?;
//! # /*
//! let sk = SecretKey::generate(&mut rng, 2048, false)?;
//! # */
//! let pk = sk.public_key();
//! let variant = Variant::PssRandomized;
//! let msg = prepare(variant, b"hello", &mut rng);
//! let (blinded, state) = pk.blind(variant, &msg, &mut rng)?;
//! let blind_sig = sk.blind_sign(blinded.as_bytes())?;
//! let sig = state.finalize(blind_sig.as_bytes())?;
//! pk.verify(variant, &msg, sig.as_bytes())?;
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! The big integers are `crypto-bigint`'s (constant time); its temporaries live on the heap and
//! are freed without being wiped (the key's own values are wiped on drop).

mod der;
mod key;
mod num;
pub mod privacy_pass;
mod pss;
mod seeded;

use rand_core::CryptoRng;
use zeroize::{Zeroize, ZeroizeOnDrop};

pub use key::{PublicKey, SecretKey, MAX_MODULUS_BITS, MIN_MODULUS_BITS};
use num::Int;
pub use seeded::MAX_SEED_PRIMES;

use crate::{Error, Result};

/// The four RSABSSA variants of RFC 9474 §5 (and RSAPBSSA's of the partially blind draft §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `RSABSSA-SHA384-PSS-Randomized`: 48-byte salt, random message prefix (RFC 9474's
    /// recommended default).
    PssRandomized,
    /// `RSABSSA-SHA384-PSSZERO-Randomized`: no salt, random message prefix.
    PssZeroRandomized,
    /// `RSABSSA-SHA384-PSS-Deterministic`: 48-byte salt, no prefix (Privacy Pass `0x0002`).
    PssDeterministic,
    /// `RSABSSA-SHA384-PSSZERO-Deterministic`: no salt, no prefix (the signature is a function
    /// of the message).
    PssZeroDeterministic,
}

impl Variant {
    /// Every variant, in RFC 9474's order.
    pub const ALL: [Variant; 4] = [
        Variant::PssRandomized,
        Variant::PssZeroRandomized,
        Variant::PssDeterministic,
        Variant::PssZeroDeterministic,
    ];

    /// The EMSA-PSS salt length: 48 or 0.
    pub fn salt_len(self) -> usize {
        match self {
            Variant::PssRandomized | Variant::PssDeterministic => pss::H_LEN,
            Variant::PssZeroRandomized | Variant::PssZeroDeterministic => 0,
        }
    }

    /// Whether `Prepare` adds a 32-byte random prefix (`PrepareRandomize`).
    pub fn is_randomized(self) -> bool {
        matches!(self, Variant::PssRandomized | Variant::PssZeroRandomized)
    }

    /// The RFC's name, e.g. `"RSABSSA-SHA384-PSS-Randomized"`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::PssRandomized => "RSABSSA-SHA384-PSS-Randomized",
            Variant::PssZeroRandomized => "RSABSSA-SHA384-PSSZERO-Randomized",
            Variant::PssDeterministic => "RSABSSA-SHA384-PSS-Deterministic",
            Variant::PssZeroDeterministic => "RSABSSA-SHA384-PSSZERO-Deterministic",
        }
    }
}

/// The length of the Randomized variants' message prefix.
pub const PREFIX_LEN: usize = 32;

/// `Prepare` (RFC 9474 §4.1): the message itself (Deterministic variants) or a random 32-byte
/// prefix followed by it (Randomized). What it returns is what is blinded, signed and verified.
pub fn prepare<R: CryptoRng + ?Sized>(variant: Variant, msg: &[u8], rng: &mut R) -> Vec<u8> {
    if !variant.is_randomized() {
        return msg.to_vec();
    }
    let mut out = vec![0u8; PREFIX_LEN];
    rng.fill_bytes(&mut out);
    out.extend_from_slice(msg);
    out
}

/// The message partially blind RSA encodes: `"msg" || I2OSP(len(info), 4) || info || msg`.
fn metadata_message(info: &[u8], msg: &[u8]) -> Result<Vec<u8>> {
    let len = u32::try_from(info.len()).map_err(|_| Error::InputTooLong)?;
    Ok([b"msg".as_slice(), &len.to_be_bytes(), info, msg].concat())
}

macro_rules! bytes_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name(Vec<u8>);

        impl $name {
            /// The bytes: exactly the key's `modulus_len()`.
            pub fn as_bytes(&self) -> &[u8] {
                &self.0
            }

            /// The bytes, owned.
            pub fn into_bytes(self) -> Vec<u8> {
                self.0
            }
        }

        impl AsRef<[u8]> for $name {
            fn as_ref(&self) -> &[u8] {
                &self.0
            }
        }
    };
}

bytes_type!(
    /// The client's blinded message (RFC 9474 `blinded_msg`).
    BlindedMessage
);
bytes_type!(
    /// The signer's answer (RFC 9474 `blind_sig`).
    BlindSignature
);
bytes_type!(
    /// An RSASSA-PSS signature (RFC 9474 `sig`).
    Signature
);

/// What the client keeps between [`PublicKey::blind`] and [`BlindingState::finalize`]: the
/// blind's inverse (secret, wiped on drop), the prepared message and the key. One-shot:
/// `finalize` consumes it.
pub struct BlindingState {
    key: PublicKey,
    variant: Variant,
    msg: Vec<u8>,
    inv: Int,
}

impl Drop for BlindingState {
    fn drop(&mut self) {
        self.inv.zeroize();
        self.msg.zeroize();
    }
}

impl ZeroizeOnDrop for BlindingState {}

impl core::fmt::Debug for BlindingState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlindingState")
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

impl PublicKey {
    /// `Blind` (RFC 9474 §4.2) of a prepared message ([`prepare`]): a fresh salt and blind from
    /// `rng`. Errors: `InvalidLength` ("encoding error": the key is too short for the salt),
    /// `Blinding` ("invalid input" or "blinding error": the encoded message or the blind shares
    /// a factor with `n`, which only a malformed key allows).
    pub fn blind<R: CryptoRng + ?Sized>(
        &self,
        variant: Variant,
        msg: &[u8],
        rng: &mut R,
    ) -> Result<(BlindedMessage, BlindingState)> {
        let mut salt = vec![0u8; variant.salt_len()];
        rng.fill_bytes(&mut salt);
        let mut r_bytes = vec![0u8; self.n.len() + 16];
        let out = loop {
            rng.fill_bytes(&mut r_bytes);
            // 128 bits more than n, reduced: statistically uniform; zero has no inverse.
            let r = self.n.reduce(&Int::from_be(&r_bytes));
            // Only the (negligible) retry is public.
            if crate::group::declassify(r.is_zero()) {
                continue;
            }
            break self.blind_with_r(variant, msg, &salt, r);
        };
        r_bytes.zeroize();
        out
    }

    /// `Blind` with a chosen salt and blind `r` (below `n`): for test vectors ([`crate::hazmat`]).
    pub(crate) fn blind_with_r(
        &self,
        variant: Variant,
        msg: &[u8],
        salt: &[u8],
        mut r: Int,
    ) -> Result<(BlindedMessage, BlindingState)> {
        if salt.len() != variant.salt_len() {
            return Err(Error::InvalidLength);
        }
        let em = pss::encode(msg, self.n.bits() - 1, salt)?;
        let m = self.n.reduce(&Int::from_be(&em));
        // The outcome is public (an error; only a malformed key fails).
        if !crate::group::declassify(m.coprime_to_odd(self.n.value())) {
            return Err(Error::Blinding);
        }
        let inv = self.n.invert(&r).ok_or(Error::Blinding)?;
        let x = self.rsavp1(&r);
        r.zeroize();
        let z = self.n.mul(&m, &x);
        let mut blinded = self.n.encode(&z);
        // Sent to the signer: public (the blind hides m).
        crate::group::validation::publish(blinded.as_mut_slice());
        Ok((
            BlindedMessage(blinded),
            BlindingState {
                key: self.clone(),
                variant,
                msg: msg.to_vec(),
                inv,
            },
        ))
    }

    /// RSASSA-PSS-VERIFY (RFC 9474 §4.5) with the variant's salt length: `InvalidSignature` for
    /// any failure, `InvalidLength` for a signature of another length than `modulus_len()`.
    pub fn verify(&self, variant: Variant, msg: &[u8], sig: &[u8]) -> Result<()> {
        let s = self.n.decode(sig).map_err(|e| match e {
            Error::InvalidLength => Error::InvalidLength,
            _ => Error::InvalidSignature,
        })?;
        let m = self.rsavp1(&s);
        let em_bits = self.n.bits() - 1;
        let em_len = (em_bits as usize).div_ceil(8);
        let em = m.to_be(em_len).ok_or(Error::InvalidSignature)?;
        if pss::verify(msg, &em, em_bits, variant.salt_len()) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }

    /// Partially blind `Blind` (draft §4.2): [`PublicKey::blind`] under the key derived for
    /// `info`, over `"msg" || len(info) || info || msg`.
    pub fn blind_with_info<R: CryptoRng + ?Sized>(
        &self,
        variant: Variant,
        msg: &[u8],
        info: &[u8],
        rng: &mut R,
    ) -> Result<(BlindedMessage, BlindingState)> {
        self.derive(info)?
            .blind(variant, &metadata_message(info, msg)?, rng)
    }

    /// Partially blind `Verify` (draft §4.5).
    pub fn verify_with_info(
        &self,
        variant: Variant,
        msg: &[u8],
        info: &[u8],
        sig: &[u8],
    ) -> Result<()> {
        self.derive(info)?
            .verify(variant, &metadata_message(info, msg)?, sig)
    }
}

impl SecretKey {
    /// `BlindSign` (RFC 9474 §4.3): `InvalidLength` unless `blinded` has `modulus_len()` bytes,
    /// `OutOfRange` for a value not below `n` (refused, not reduced), `SigningFailure` when
    /// the result fails its check (a fault: nothing is returned).
    pub fn blind_sign(&self, blinded: &[u8]) -> Result<BlindSignature> {
        let n = &self.public.n;
        let m = n.decode(blinded)?;
        let mut s = self.rsasp1(&m)?;
        let mut out = n.encode(&s);
        // The blind signature is sent to the client: public.
        crate::group::validation::publish(out.as_mut_slice());
        s.zeroize();
        Ok(BlindSignature(out))
    }

    /// Partially blind `BlindSign` (draft §4.3) under the key derived for `info`.
    pub fn blind_sign_with_info(&self, blinded: &[u8], info: &[u8]) -> Result<BlindSignature> {
        self.derive(info)?.blind_sign(blinded)
    }
}

impl BlindingState {
    /// `Finalize` (RFC 9474 §4.4): unblinds and verifies. `InvalidLength` for a blind
    /// signature of another length than `modulus_len()`, `InvalidSignature` when the result
    /// does not verify (or the value is not below `n`).
    pub fn finalize(self, blind_sig: &[u8]) -> Result<Signature> {
        let n = &self.key.n;
        let z = n.decode(blind_sig).map_err(|e| match e {
            Error::InvalidLength => Error::InvalidLength,
            _ => Error::InvalidSignature,
        })?;
        let s = n.mul(&z, &self.inv);
        let mut sig = n.encode(&s);
        // The signature is the output (sent with the token); verified as public, as any.
        crate::group::validation::publish(sig.as_mut_slice());
        self.key.verify(self.variant, &self.msg, &sig)?;
        Ok(Signature(sig))
    }

    /// The prepared message this state will finalize a signature over (for the Randomized
    /// variants, prefix included: the verifier needs it).
    pub fn message(&self) -> &[u8] {
        &self.msg
    }
}

/// How a test gives the blind of [`crate::hazmat::blind_rsa_blind_with`]: `r` itself (RFC 9578 and the
/// partially blind draft's vectors, `blind` / `r`) or its inverse `r^-1 mod n` (RFC 9474's
/// vectors, `inv`). Big-endian, any length; the value must be below `n` and invertible.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub enum RsaBlind<'a> {
    /// `r`.
    R(&'a [u8]),
    /// `r^-1 mod n`.
    Inv(&'a [u8]),
}

/// `Blind` with a chosen salt and blind ([`crate::hazmat::blind_rsa_blind_with`]).
pub(crate) fn blind_for_vectors(
    pk: &PublicKey,
    variant: Variant,
    msg: &[u8],
    info: Option<&[u8]>,
    salt: &[u8],
    blind: RsaBlind<'_>,
) -> Result<(BlindedMessage, BlindingState)> {
    let (key, msg) = match info {
        Some(info) => (pk.derive(info)?, metadata_message(info, msg)?),
        None => (pk.clone(), msg.to_vec()),
    };
    let decode = |b: &[u8]| -> Result<Int> {
        let x = Int::from_be(b);
        if !bool::from(key.n.reduce(&x).ct_eq(&x)) {
            return Err(Error::OutOfRange);
        }
        Ok(x)
    };
    let r = match blind {
        RsaBlind::R(r) => decode(r)?,
        RsaBlind::Inv(inv) => key.n.invert(&decode(inv)?).ok_or(Error::Blinding)?,
    };
    key.blind_with_r(variant, &msg, salt, r)
}

/// EMSA-PSS-ENCODE ([`crate::hazmat::emsa_pss_encode`]).
pub(crate) fn pss_encode(msg: &[u8], em_bits: u32, salt: &[u8]) -> Result<Vec<u8>> {
    pss::encode(msg, em_bits, salt)
}

/// A 2048-bit key for examples and tests (the key of RFC 9578 Appendix A.2). Never use it for
/// anything else: its private half is published.
#[doc(hidden)]
pub fn test_key() -> Result<SecretKey> {
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect()
    };
    SecretKey::from_components(
        &hex(TEST_P),
        &hex(TEST_Q),
        &hex(TEST_D),
        &[0x01, 0x00, 0x01],
    )
}

const TEST_P: &str = concat!(
    "ef730b0f514bc0f59d995fd5f9988c4c4c135d105cd56d43ee28a035c969f550",
    "c0cd7148ea87ecdeffb937c85c64874405df56eaeb478bf741884a200ee4a396",
    "33d10aa3ec404366da2b531f398d46fbc8f305752906cf78939dd2f3cc9798ae",
    "a7c9d82fef4049f198797e452a5b6d2849b86486345d4b31f69111a2ae0f944b",
);
const TEST_Q: &str = concat!(
    "d924c9ebcb61316bfdc4abb3dba2cc403cc8989e4e4900f486cb6cf467b4d46f",
    "eb8740effec4f33b9c2d2ec8b20c0fd95a4cc1f09fab3bfcb6c6a043f5591829",
    "a181ff075e24fd19fa7eec1137ad88a3db5cf7e0022ed501eefb466b2dfe811c",
    "18b520b66f979df252227a0b5391e6b4874b83491c40b55b379f99326b643dbd",
);
const TEST_D: &str = concat!(
    "2f309b7738b58cf779f0c915f822dfc9f490dbeadf1e7adfac578ffd5703c6bb",
    "a2da9d5a49725889b7ba112f8c6ff30551d9473e000bc35c50e167ab7fa73a0c",
    "2b21965c4b59257c1ac06cbdcf28e863f6718ea8c29043c1c6da84629490fd04",
    "91bf52d172c959c1921b96949c725747b8a7c7871995fa0b9eb1107ba854c6c3",
    "2a6f4747c5d1c304c7467d55b080aa233a3a52ffdf26114cbb541ffa6b696b7a",
    "096f8dcff69ca08ab58efb0fb753aa5185c73001696bbce8c099e3f435dcbbfe",
    "05e7dbaad23db2a659c23add521407f150b1af2d9054c4164229d6840b7a32a4",
    "f8481493ae8959cf0aea8def0c3c9f75b9a34c75718b7072c8dbab17cefeca49",
);

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SecretKey {
        test_key().unwrap_or_else(|e| panic!("test key: {e}"))
    }

    #[test]
    fn every_variant_round_trips_and_refuses() {
        let mut rng = rand::rng();
        let sk = key();
        let pk = sk.public_key();
        for variant in Variant::ALL {
            let msg = prepare(variant, b"hello", &mut rng);
            assert_eq!(msg.len(), 5 + if variant.is_randomized() { 32 } else { 0 });
            let (blinded, state) = pk
                .blind(variant, &msg, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(state.message(), msg.as_slice());
            let blind_sig = sk
                .blind_sign(blinded.as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
            let sig = state
                .finalize(blind_sig.as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                pk.verify(variant, &msg, sig.as_bytes()),
                Ok(()),
                "{variant:?}"
            );
            // A wrong blind signature is refused by finalize (it verifies).
            let (_, state) = pk
                .blind(variant, &msg, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                state.finalize(blind_sig.as_bytes()).err(),
                Some(Error::InvalidSignature)
            );
            let (_, state) = pk
                .blind(variant, &msg, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                state.finalize(&blind_sig.as_bytes()[1..]).err(),
                Some(Error::InvalidLength)
            );
            let (_, state) = pk
                .blind(variant, &msg, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                state.finalize(&pk.modulus()).err(),
                Some(Error::InvalidSignature)
            );
        }
        // Blinding the same message twice gives unrelated blinded messages.
        let msg = b"same";
        let a = pk
            .blind(Variant::PssZeroDeterministic, msg, &mut rng)
            .map(|x| x.0);
        let b = pk
            .blind(Variant::PssZeroDeterministic, msg, &mut rng)
            .map(|x| x.0);
        assert_ne!(a, b);
    }

    #[test]
    fn partially_blind_round_trip_and_metadata_binding() {
        let mut rng = rand::rng();
        let sk = key();
        let pk = sk.public_key();
        let variant = Variant::PssDeterministic;
        let mut ok = 0;
        for i in 0u8..8 {
            let info = [b'm', i];
            let Ok(derived) = sk.derive(&info) else {
                // This key is not made of safe primes: e' may share a factor with phi.
                assert_eq!(sk.derive(&info).err(), Some(Error::DeriveKeyPair));
                continue;
            };
            assert_eq!(
                derived.public_key(),
                &pk.derive(&info).unwrap_or_else(|e| panic!("{e}"))
            );
            let (blinded, state) = pk
                .blind_with_info(variant, b"msg", &info, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            let blind_sig = sk
                .blind_sign_with_info(blinded.as_bytes(), &info)
                .unwrap_or_else(|e| panic!("{e}"));
            let sig = state
                .finalize(blind_sig.as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                pk.verify_with_info(variant, b"msg", &info, sig.as_bytes()),
                Ok(())
            );
            assert_eq!(
                pk.verify_with_info(variant, b"msg", b"other", sig.as_bytes()),
                Err(Error::InvalidSignature)
            );
            assert_eq!(
                pk.verify(variant, b"msg", sig.as_bytes()),
                Err(Error::InvalidSignature)
            );
            ok += 1;
        }
        assert!(ok > 0, "no metadata value derived a key");
    }
}

/// `Serialize`/`Deserialize` through the DER and wire encodings (hex in human-readable
/// formats): public keys as their SubjectPublicKeyInfo, secret keys as PKCS#8 (wiped after
/// serializing), tokens wiped after serializing.
#[cfg(feature = "serde")]
mod serde_impls {
    use super::privacy_pass::{
        ExtendedTokenRequest, Extensions, Token, TokenKey, TokenRequest, TokenResponse,
    };
    use super::{PublicKey, SecretKey};
    use crate::codec::serde_via_bytes;

    serde_via_bytes!(PublicKey, PublicKey::to_spki, |b: &[u8]| {
        PublicKey::from_spki(b)
    });
    serde_via_bytes!(SecretKey, SecretKey::to_pkcs8_der, |b: &[u8]| {
        SecretKey::from_pkcs8_der(b)
    });
    serde_via_bytes!(
        TokenKey,
        |k: &TokenKey| k.to_spki().to_vec(),
        |b: &[u8]| { TokenKey::from_spki(b) }
    );
    serde_via_bytes!(
        Extensions,
        |e: &Extensions| e.as_bytes().to_vec(),
        |b: &[u8]| { Extensions::from_bytes(b) }
    );
    serde_via_bytes!(TokenRequest);
    serde_via_bytes!(ExtendedTokenRequest);
    serde_via_bytes!(TokenResponse);
    serde_via_bytes!(Token);
}
