//! Ciphersuites (RFC 9497 §4): a sealed trait with one implementation per supported suite.

use core::fmt::Debug;

use hybrid_array::Array;
use sha2::digest::{Digest, OutputSizeUser};

use crate::group::decaf448::Shake256x64;
use crate::group::{Decaf448, MessageExpansion, PrimeGroup, Ristretto255, Xmd, Xof};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::P256Sha256 {}
    impl Sealed for super::P384Sha384 {}
    impl Sealed for super::P521Sha512 {}
    impl Sealed for super::Ristretto255Sha512 {}
    impl Sealed for super::Decaf448Shake256 {}
}

/// An RFC 9497 ciphersuite: a prime-order group and a hash function.
///
/// Sealed: implemented by [`Ristretto255Sha512`], [`Decaf448Shake256`], [`P256Sha256`],
/// [`P384Sha384`] and [`P521Sha512`].
pub trait Suite:
    sealed::Sealed + Copy + Clone + Debug + Default + Eq + Send + Sync + 'static
{
    /// The prime-order group.
    type Group: PrimeGroup;
    /// The suite's hash function (`Hash`, output `Nh` bytes).
    type Hash: Digest + Clone + Default + Send + Sync;
    /// The suite identifier, e.g. `b"P384-SHA384"`.
    const ID: &'static [u8];
    /// The `expand_message` of HashToGroup and HashToScalar (`expand_message_xmd` with the
    /// suite's hash, or `expand_message_xof` for an XOF suite).
    const EXPANSION: MessageExpansion;
    /// `Nh`: the hash output length.
    const NH: usize;
}

/// A scalar of the suite's group.
pub type Scalar<S> = <<S as Suite>::Group as PrimeGroup>::Scalar;
/// An element of the suite's group, in the representation the arithmetic runs on.
pub type Element<S> = <<S as Suite>::Group as PrimeGroup>::Element;
/// A normalised element of the suite's group (what keys and messages hold).
pub type Normal<S> = <<S as Suite>::Group as PrimeGroup>::Normal;

/// The output of the suite's hash function (`Nh` bytes).
pub type Output<S> = Array<u8, <<S as Suite>::Hash as OutputSizeUser>::OutputSize>;

/// ristretto255-SHA512 (RFC 9497 §4.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ristretto255Sha512;

/// decaf448-SHAKE256 (RFC 9497 §4.2): decaf448 with SHAKE256 (`Nh = 64`) as the hash and
/// `expand_message_xof` with SHAKE256 as the expander.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decaf448Shake256;

/// P256-SHA256 (RFC 9497 §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct P256Sha256;

/// P384-SHA384 (RFC 9497 §4.4); the suite of Privacy Pass token type 0x0001.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct P384Sha384;

/// P521-SHA512 (RFC 9497 §4.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct P521Sha512;

impl Suite for Ristretto255Sha512 {
    type Group = Ristretto255;
    type Hash = sha2::Sha512;
    const ID: &'static [u8] = b"ristretto255-SHA512";
    const EXPANSION: MessageExpansion = MessageExpansion::Xmd(Xmd::Sha512);
    const NH: usize = 64;
}

impl Suite for Decaf448Shake256 {
    type Group = Decaf448;
    type Hash = Shake256x64;
    const ID: &'static [u8] = b"decaf448-SHAKE256";
    const EXPANSION: MessageExpansion = MessageExpansion::Xof(Xof::Shake256);
    const NH: usize = 64;
}

impl Suite for P256Sha256 {
    type Group = crate::group::NistP256;
    type Hash = sha2::Sha256;
    const ID: &'static [u8] = b"P256-SHA256";
    const EXPANSION: MessageExpansion = MessageExpansion::Xmd(Xmd::Sha256);
    const NH: usize = 32;
}

impl Suite for P384Sha384 {
    type Group = crate::group::NistP384;
    type Hash = sha2::Sha384;
    const ID: &'static [u8] = b"P384-SHA384";
    const EXPANSION: MessageExpansion = MessageExpansion::Xmd(Xmd::Sha384);
    const NH: usize = 48;
}

impl Suite for P521Sha512 {
    type Group = crate::group::NistP521;
    type Hash = sha2::Sha512;
    const ID: &'static [u8] = b"P521-SHA512";
    const EXPANSION: MessageExpansion = MessageExpansion::Xmd(Xmd::Sha512);
    const NH: usize = 64;
}
