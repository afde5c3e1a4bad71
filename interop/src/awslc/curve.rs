//! AWS-LC's elliptic-curve layer on P-256 and P-384: `EC_POINT_mul` with a variable base point
//! and with the generator, for the `curve/awslc/...` benches and a cross-check against ours.

use super::ffi::{check, clear_errors, error};
use super::sys;
use crate::Result;
use core::ptr::{self, NonNull};

/// A curve AWS-LC has built in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Curve {
    /// NIST P-256 (`NID_X9_62_prime256v1`).
    P256,
    /// NIST P-384 (`NID_secp384r1`).
    P384,
}

impl Curve {
    /// Both curves.
    pub const ALL: [Self; 2] = [Self::P256, Self::P384];

    /// `"P-256"` or `"P-384"`, as in the bench names.
    pub const fn name(self) -> &'static str {
        match self {
            Self::P256 => "P-256",
            Self::P384 => "P-384",
        }
    }

    const fn nid(self) -> core::ffi::c_int {
        match self {
            Self::P256 => sys::NID_X9_62_prime256v1,
            Self::P384 => sys::NID_secp384r1,
        }
    }
}

/// An `EC_GROUP` of one of AWS-LC's built-in curves.
pub struct Group {
    ptr: NonNull<sys::EC_GROUP>,
    curve: Curve,
}

/// An `EC_POINT` (AWS-LC keeps it in Jacobian coordinates).
pub struct Point {
    ptr: NonNull<sys::EC_POINT>,
}

/// A scalar as a `BIGNUM`, which `EC_POINT_mul` takes.
pub struct Scalar {
    ptr: NonNull<sys::BIGNUM>,
}

impl Group {
    /// `EC_GROUP_new_by_curve_name`.
    ///
    /// # Errors
    /// If AWS-LC fails (it does not for its built-in curves).
    pub fn new(curve: Curve) -> Result<Self> {
        clear_errors();
        // SAFETY: no pointers are passed; AWS-LC returns a group we own (a static one for its
        // built-in curves, whose `EC_GROUP_free` does nothing) or null.
        let ptr = unsafe { sys::EC_GROUP_new_by_curve_name(curve.nid()) };
        let ptr = NonNull::new(ptr).ok_or_else(|| error("EC_GROUP_new_by_curve_name"))?;
        Ok(Self { ptr, curve })
    }

    /// The group's curve.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// `EC_POINT_new`: a new point (the point at infinity) of this group.
    ///
    /// # Errors
    /// If allocation fails.
    pub fn new_point(&self) -> Result<Point> {
        clear_errors();
        // SAFETY: `self.ptr` is a live group; AWS-LC returns an owned point or null.
        let ptr = unsafe { sys::EC_POINT_new(self.ptr.as_ptr()) };
        let ptr = NonNull::new(ptr).ok_or_else(|| error("EC_POINT_new"))?;
        Ok(Point { ptr })
    }

    /// `EC_POINT_oct2point`: decodes a SEC1 point (here: uncompressed, `04 ‖ x ‖ y`).
    ///
    /// # Errors
    /// If the bytes are not a point of the curve.
    pub fn decode_point(&self, bytes: &[u8]) -> Result<Point> {
        let point = self.new_point()?;
        clear_errors();
        // SAFETY: `self.ptr` and `point` are live; `bytes` is readable for its length; no
        // `BN_CTX` is passed (AWS-LC makes its own).
        let ret = unsafe {
            sys::EC_POINT_oct2point(
                self.ptr.as_ptr(),
                point.ptr.as_ptr(),
                bytes.as_ptr(),
                bytes.len(),
                ptr::null_mut(),
            )
        };
        check("EC_POINT_oct2point", ret)?;
        Ok(point)
    }

    /// `EC_POINT_point2oct` in uncompressed form (`04 ‖ x ‖ y`).
    ///
    /// # Errors
    /// If the point is at infinity or does not belong to this group.
    pub fn encode_point(&self, point: &Point) -> Result<Vec<u8>> {
        let mut out = vec![0u8; 1 + 2 * 48];
        clear_errors();
        // SAFETY: `self.ptr` and `point` are live; `out` is writable for its length, which is
        // passed as its maximum; no `BN_CTX` is passed.
        let len = unsafe {
            sys::EC_POINT_point2oct(
                self.ptr.as_ptr(),
                point.ptr.as_ptr(),
                sys::point_conversion_form_t::POINT_CONVERSION_UNCOMPRESSED,
                out.as_mut_ptr(),
                out.len(),
                ptr::null_mut(),
            )
        };
        if len == 0 {
            return Err(error("EC_POINT_point2oct"));
        }
        out.truncate(len);
        Ok(out)
    }

    /// `BN_bin2bn`: a scalar from big-endian bytes (`EC_POINT_mul` reduces it modulo the order).
    ///
    /// # Errors
    /// If allocation fails.
    pub fn scalar(&self, bytes: &[u8]) -> Result<Scalar> {
        clear_errors();
        // SAFETY: `bytes` is readable for its length; with a null `ret` AWS-LC returns a new
        // owned `BIGNUM` or null.
        let ptr = unsafe { sys::BN_bin2bn(bytes.as_ptr(), bytes.len(), ptr::null_mut()) };
        let ptr = NonNull::new(ptr).ok_or_else(|| error("BN_bin2bn"))?;
        Ok(Scalar { ptr })
    }

    /// `EC_POINT_mul(group, out, NULL, point, k, NULL)`: `out = k · point`.
    ///
    /// # Errors
    /// If a point belongs to another group.
    pub fn mul(&self, out: &mut Point, point: &Point, k: &Scalar) -> Result<()> {
        clear_errors();
        // SAFETY: the group, both points and the scalar are live; `out` is borrowed exclusively,
        // so it is not `point` (AWS-LC also allows that); no `BN_CTX` is passed.
        let ret = unsafe {
            sys::EC_POINT_mul(
                self.ptr.as_ptr(),
                out.ptr.as_ptr(),
                ptr::null(),
                point.ptr.as_ptr(),
                k.ptr.as_ptr(),
                ptr::null_mut(),
            )
        };
        check("EC_POINT_mul", ret)
    }

    /// `EC_POINT_mul(group, out, k, NULL, NULL, NULL)`: `out = k · G`.
    ///
    /// # Errors
    /// If `out` belongs to another group.
    pub fn mul_base(&self, out: &mut Point, k: &Scalar) -> Result<()> {
        clear_errors();
        // SAFETY: the group, `out` and the scalar are live; no point operand or `BN_CTX`.
        let ret = unsafe {
            sys::EC_POINT_mul(
                self.ptr.as_ptr(),
                out.ptr.as_ptr(),
                k.ptr.as_ptr(),
                ptr::null(),
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check("EC_POINT_mul", ret)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is the group we own; it is freed exactly once, here (points hold
        // their own reference to it).
        unsafe { sys::EC_GROUP_free(self.ptr.as_ptr()) }
    }
}

impl Drop for Point {
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is the point we own; it is freed exactly once, here.
        unsafe { sys::EC_POINT_free(self.ptr.as_ptr()) }
    }
}

impl Drop for Scalar {
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is the `BIGNUM` we own; it is wiped and freed exactly once, here.
        unsafe { sys::BN_clear_free(self.ptr.as_ptr()) }
    }
}

impl core::fmt::Debug for Group {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Group")
            .field("curve", &self.curve)
            .finish_non_exhaustive()
    }
}

impl core::fmt::Debug for Point {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Point").finish_non_exhaustive()
    }
}

impl core::fmt::Debug for Scalar {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Scalar(<redacted>)")
    }
}
