//! Ciphersuites (RFC 9497 §4): a sealed trait with one implementation per supported suite.

use core::fmt::Debug;

use elliptic_curve::generic_array::GenericArray;
use sha2::digest::{Digest, OutputSizeUser};

use crate::group::{Curve, Xmd};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::P256Sha256 {}
    impl Sealed for super::P384Sha384 {}
}

/// An RFC 9497 ciphersuite: a prime-order group and a hash function.
///
/// Sealed: implemented by [`P256Sha256`] and [`P384Sha384`] only.
pub trait Suite:
    sealed::Sealed + Copy + Clone + Debug + Default + Eq + Send + Sync + 'static
{
    /// The curve.
    type Curve: Curve;
    /// The suite's hash function (`Hash`, output `Nh` bytes).
    type Hash: Digest + Clone + Default + Send + Sync;
    /// The suite identifier, e.g. `b"P384-SHA384"`.
    const ID: &'static [u8];
    /// The `expand_message_xmd` hash of HashToGroup and HashToScalar.
    const XMD: Xmd;
    /// `Nh`: the hash output length.
    const NH: usize;
}

/// The output of the suite's hash function (`Nh` bytes).
pub type Output<S> = GenericArray<u8, <<S as Suite>::Hash as OutputSizeUser>::OutputSize>;

/// P256-SHA256 (RFC 9497 §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct P256Sha256;

/// P384-SHA384 (RFC 9497 §4.4); the suite of Privacy Pass token type 0x0001.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct P384Sha384;

impl Suite for P256Sha256 {
    type Curve = p256::NistP256;
    type Hash = sha2::Sha256;
    const ID: &'static [u8] = b"P256-SHA256";
    const XMD: Xmd = Xmd::Sha256;
    const NH: usize = 32;
}

impl Suite for P384Sha384 {
    type Curve = p384::NistP384;
    type Hash = sha2::Sha384;
    const ID: &'static [u8] = b"P384-SHA384";
    const XMD: Xmd = Xmd::Sha384;
    const NH: usize = 48;
}
