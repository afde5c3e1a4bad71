//! Vector backends of the group layer, each selected at run time by CPU detection, with the
//! portable code as the fallback and the test oracle.
//!
//! - [`ifma_rsa`]: the RSA private operation's exponentiation on AVX-512 IFMA (x86-64): both CRT
//!   halves of an RSA-2048 key (1024-bit moduli) exponentiated together.

#[cfg(target_arch = "x86_64")]
pub(crate) mod ifma_rsa;
