//! Vector backends of the group layer, each selected at run time by CPU detection, with the
//! portable code as the fallback and the test oracle.
//!
//! - [`adx_rsa`]: the RSA private operation's Montgomery multiplication and squaring on
//!   `mulx`/`adcx`/`adox` (BMI2 and ADX) for the 1024-bit class, where IFMA is absent.
//! - [`ifma_rsa`]: the RSA private operation's exponentiation on AVX-512 IFMA (x86-64): both CRT
//!   halves of an RSA-2048 key (1024-bit moduli) exponentiated together.

#[cfg(target_arch = "x86_64")]
pub(crate) mod adx_rsa;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ifma_rsa;
