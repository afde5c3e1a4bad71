//! **Dangerous**: deterministic entry points, for replaying published test vectors and for
//! interoperability tests. Each takes a value that must be secret and uniformly random in real
//! use (a blind, a nonce, a proof nonce): a reused or predictable one links a client's
//! requests to its tokens or leaks the server key. Applications use the randomized API.
//!
//! JavaScript sees them as static methods of the `hazmat` class: `hazmat.voprfBlind(...)`.

use privacy_tokens::blind_rsa::privacy_pass as rsa_pp;
use privacy_tokens::voprf::privacy_pass::generic::Client;
use privacy_tokens::voprf::privacy_pass::{TokenType, Type1, Type5, NONCE_LEN};
use privacy_tokens::voprf::PublicKey;
use wasm_bindgen::prelude::*;

use crate::challenge::{Challenge, TYPE_1, TYPE_5};
use crate::privacy_pass::{
    request_result, rsa_request_result, RequestState, TokenRequestState, BATCH_REQUEST_MEDIA_TYPE,
    REQUEST_MEDIA_TYPE,
};
use crate::{bytes, bytes_list, error, lib_error, JsResult, OrThrow};

/// Deterministic entry points (see the module documentation): never use them with fixed or
/// predictable values outside tests.
#[wasm_bindgen(js_name = hazmat)]
pub struct Hazmat;

fn nonces(v: &JsValue, n: usize) -> JsResult<Vec<[u8; NONCE_LEN]>> {
    let list = bytes_list(v, "nonces", privacy_tokens::voprf::privacy_pass::MAX_BATCH)?;
    if list.len() != n {
        return Err(lib_error(privacy_tokens::Error::Batch));
    }
    list.iter()
        .map(|b| {
            <[u8; NONCE_LEN]>::try_from(b.as_slice())
                .map_err(|_| lib_error(privacy_tokens::Error::InvalidLength))
        })
        .collect()
}

fn pp_request<T: TokenType>(
    challenge: &[u8],
    key: &[u8],
    nonces: &[[u8; NONCE_LEN]],
    blinds: &[Vec<u8>],
    batch: bool,
    single: impl FnOnce(privacy_tokens::voprf::privacy_pass::generic::ClientState<T>) -> RequestState,
    multi: impl FnOnce(
        privacy_tokens::voprf::privacy_pass::generic::BatchClientState<T>,
    ) -> RequestState,
) -> JsResult<JsValue> {
    let pk = PublicKey::<T::Suite>::from_bytes(key).or_throw()?;
    let (body, ct, st) = if batch {
        let refs: Vec<&[u8]> = blinds.iter().map(|b| b.as_slice()).collect();
        let (req, st) =
            Client::<T>::request_batch_with(&pk, challenge, nonces, &refs).or_throw()?;
        (req.to_bytes(), BATCH_REQUEST_MEDIA_TYPE, multi(st))
    } else {
        if nonces.len() != 1 {
            return Err(lib_error(privacy_tokens::Error::Batch));
        }
        let (req, st) =
            Client::<T>::request_with(&pk, challenge, &nonces[0], &blinds[0]).or_throw()?;
        (
            req.to_bytes().as_ref().to_vec(),
            REQUEST_MEDIA_TYPE,
            single(st),
        )
    };
    let state = TokenRequestState {
        inner: Some(st),
        count: nonces.len(),
        token_type: T::TOKEN_TYPE,
    };
    Ok(request_result(&body, ct, state.into()))
}

#[wasm_bindgen(js_class = hazmat)]
impl Hazmat {
    /// `createTokenRequest` with the caller's nonces (32 bytes each) and VOPRF blinds
    /// (`SerializeScalar` bytes), one pair per token: one token when `batch` is false (one
    /// pair), an amortized batch otherwise. Reproduces RFC 9578 Appendix A and the
    /// batched-tokens draft's vectors.
    #[wasm_bindgen(js_name = createTokenRequest, unchecked_return_type = "TokenRequest")]
    pub fn create_token_request(
        challenge: &Challenge,
        #[wasm_bindgen(js_name = tokenKey, unchecked_param_type = "Uint8Array")] token_key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] nonces: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] blinds: JsValue,
        batch: bool,
    ) -> JsResult<JsValue> {
        let key = bytes(&token_key, "tokenKey")?;
        let blinds = bytes_list(
            &blinds,
            "blinds",
            privacy_tokens::voprf::privacy_pass::MAX_BATCH,
        )?;
        if blinds.is_empty() {
            return Err(lib_error(privacy_tokens::Error::Batch));
        }
        let nonces = self::nonces(&nonces, blinds.len())?;
        let c = challenge.to_bytes();
        match challenge.token_type() {
            TYPE_1 => pp_request::<Type1>(
                &c,
                &key,
                &nonces,
                &blinds,
                batch,
                RequestState::T1,
                RequestState::T1Batch,
            ),
            TYPE_5 => pp_request::<Type5>(
                &c,
                &key,
                &nonces,
                &blinds,
                batch,
                RequestState::T5,
                RequestState::T5Batch,
            ),
            t => Err(error(
                crate::code_of(privacy_tokens::Error::UnsupportedValue),
                &format!("token type {t:#06x}"),
            )),
        }
    }

    /// A blind RSA request (type 0x0002, or 0xDA7A with `extensions`, the encoded list) with
    /// the caller's nonce (32 bytes), PSS salt (48 bytes) and blind `r` (big-endian, below the
    /// modulus). Reproduces RFC 9578 Appendix A.2 and the public-metadata draft's vectors.
    #[wasm_bindgen(js_name = createBlindRsaTokenRequest, unchecked_return_type = "TokenRequest")]
    pub fn create_blind_rsa_token_request(
        challenge: &Challenge,
        #[wasm_bindgen(js_name = tokenKey, unchecked_param_type = "Uint8Array")] token_key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | undefined")] extensions: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] nonce: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] salt: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] blind: JsValue,
    ) -> JsResult<JsValue> {
        let key = rsa_pp::TokenKey::from_spki(&bytes(&token_key, "tokenKey")?).or_throw()?;
        let ext = if extensions.is_undefined() || extensions.is_null() {
            None
        } else {
            Some(rsa_pp::Extensions::from_bytes(&bytes(&extensions, "extensions")?).or_throw()?)
        };
        let nonce = <[u8; NONCE_LEN]>::try_from(bytes(&nonce, "nonce")?.as_slice())
            .map_err(|_| lib_error(privacy_tokens::Error::InvalidLength))?;
        let salt = bytes(&salt, "salt")?;
        let blind = bytes(&blind, "blind")?;
        let (req, st) = rsa_pp::Client::request_with(
            &key,
            &challenge.to_bytes(),
            ext.as_ref(),
            &nonce,
            &salt,
            &blind,
        )
        .or_throw()?;
        // `request_with` gives the bare `TokenRequest`; a 0xDA7A request is it followed by the
        // extensions (`ExtendedTokenRequest`, which has no public constructor).
        let mut body = req.to_bytes();
        if let Some(e) = &ext {
            body.extend_from_slice(e.as_bytes());
        }
        Ok(rsa_request_result(&body, st, req.token_type()))
    }
}

#[cfg(feature = "oprf")]
mod oprf_vectors {
    use privacy_tokens::hazmat as lib;
    use privacy_tokens::voprf::{BlindedElement, EvaluationElement};
    use privacy_tokens::{
        Decaf448Shake256, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512,
    };
    use zeroize::Zeroizing;

    use super::*;
    use crate::oprf::{
        batch_evaluation, blind_result, build, each, keyed, pending, public_key_arg, suite_arg,
        OprfClientState, OprfStates, PoprfClientState, PoprfServer, PoprfServers, PoprfStates,
        PublicKeys, SuiteId, VoprfClientState, VoprfServer, VoprfServers, VoprfStates,
    };

    type Secrets = Vec<Zeroizing<Vec<u8>>>;

    fn inputs_and_blinds(
        inputs: &JsValue,
        blinds: &JsValue,
        single: bool,
    ) -> JsResult<(Secrets, Secrets)> {
        let (i, b) = if single {
            (vec![bytes(inputs, "input")?], vec![bytes(blinds, "blind")?])
        } else {
            let i = bytes_list(inputs, "inputs", 0xffff)?;
            let b = bytes_list(blinds, "blinds", 0xffff)?;
            if i.len() != b.len() || i.is_empty() {
                return Err(lib_error(privacy_tokens::Error::Batch));
            }
            (i, b)
        };
        Ok((
            i.into_iter().map(Zeroizing::new).collect(),
            b.into_iter().map(Zeroizing::new).collect(),
        ))
    }

    fn oprf(suite: JsValue, inputs: JsValue, blinds: JsValue, single: bool) -> JsResult<JsValue> {
        let (inputs, blinds) = inputs_and_blinds(&inputs, &blinds, single)?;
        let mut k = 0;
        let mut elements = Vec::new();
        let inner = build!(suite_arg(&suite)?, OprfStates, S => {
            pending(inputs, single, |i| {
                k += 1;
                lib::oprf_blind_with::<S>(i, &blinds[k - 1])
            })
            .map(|(e, p)| { elements = e; p })
        });
        Ok(blind_result(
            elements,
            single,
            OprfClientState { inner: Some(inner) }.into(),
        ))
    }

    fn voprf(
        suite: SuiteId,
        pk: &JsValue,
        inputs: JsValue,
        blinds: JsValue,
        single: bool,
    ) -> JsResult<JsValue> {
        let pk = public_key_arg(suite, pk)?;
        let (inputs, blinds) = inputs_and_blinds(&inputs, &blinds, single)?;
        let mut k = 0;
        let mut elements = Vec::new();
        let inner = keyed!(&pk, VoprfStates, S, pk => {
            pending(inputs, single, |i| {
                k += 1;
                lib::voprf_blind_with::<S>(i, &blinds[k - 1])
            })
            .map(|(e, p)| { elements = e; (p, *pk) })
        });
        Ok(blind_result(
            elements,
            single,
            VoprfClientState { inner: Some(inner) }.into(),
        ))
    }

    fn poprf(
        suite: SuiteId,
        pk: &JsValue,
        info: &JsValue,
        inputs: JsValue,
        blinds: JsValue,
        single: bool,
    ) -> JsResult<JsValue> {
        let pk = public_key_arg(suite, pk)?;
        let info = bytes(info, "info")?;
        let (inputs, blinds) = inputs_and_blinds(&inputs, &blinds, single)?;
        let mut k = 0;
        let mut elements = Vec::new();
        let inner = keyed!(&pk, PoprfStates, S, pk => {
            pending(inputs, single, |i| {
                k += 1;
                lib::poprf_blind_with::<S>(i, &info, pk, &blinds[k - 1])
            })
            .map(|(e, p)| { elements = e; (p, info.clone()) })
        });
        Ok(blind_result(
            elements,
            single,
            PoprfClientState { inner: Some(inner) }.into(),
        ))
    }

    fn blinded<S: privacy_tokens::Suite>(v: &JsValue) -> JsResult<Vec<BlindedElement<S>>> {
        crate::oprf::blinded_list::<S>(v)
    }

    #[wasm_bindgen(js_class = hazmat)]
    impl Hazmat {
        /// OPRF `Blind` with the caller's blind (`SerializeScalar` bytes).
        #[wasm_bindgen(js_name = oprfBlind, unchecked_return_type = "BlindResult<OprfClientState>")]
        pub fn oprf_blind(
            #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] input: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] blind: JsValue,
        ) -> JsResult<JsValue> {
            oprf(suite, input, blind, true)
        }

        /// OPRF `Blind` of each input with its blind.
        #[wasm_bindgen(js_name = oprfBlindBatch, unchecked_return_type = "BatchBlindResult<OprfClientState>")]
        pub fn oprf_blind_batch(
            #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] inputs: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] blinds: JsValue,
        ) -> JsResult<JsValue> {
            oprf(suite, inputs, blinds, false)
        }

        /// VOPRF `Blind` with the caller's blind.
        #[wasm_bindgen(js_name = voprfBlind, unchecked_return_type = "BlindResult<VoprfClientState>")]
        pub fn voprf_blind(
            #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
            #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
            public_key: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] input: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] blind: JsValue,
        ) -> JsResult<JsValue> {
            voprf(suite_arg(&suite)?, &public_key, input, blind, true)
        }

        /// VOPRF `Blind` of each input with its blind.
        #[wasm_bindgen(js_name = voprfBlindBatch, unchecked_return_type = "BatchBlindResult<VoprfClientState>")]
        pub fn voprf_blind_batch(
            #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
            #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
            public_key: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] inputs: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] blinds: JsValue,
        ) -> JsResult<JsValue> {
            voprf(suite_arg(&suite)?, &public_key, inputs, blinds, false)
        }

        /// POPRF `Blind` with the caller's blind.
        #[wasm_bindgen(js_name = poprfBlind, unchecked_return_type = "BlindResult<PoprfClientState>")]
        pub fn poprf_blind(
            #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
            #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
            public_key: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] input: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] blind: JsValue,
        ) -> JsResult<JsValue> {
            poprf(suite_arg(&suite)?, &public_key, &info, input, blind, true)
        }

        /// POPRF `Blind` of each input with its blind.
        #[wasm_bindgen(js_name = poprfBlindBatch, unchecked_return_type = "BatchBlindResult<PoprfClientState>")]
        pub fn poprf_blind_batch(
            #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
            #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
            public_key: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] inputs: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] blinds: JsValue,
        ) -> JsResult<JsValue> {
            poprf(
                suite_arg(&suite)?,
                &public_key,
                &info,
                inputs,
                blinds,
                false,
            )
        }

        /// VOPRF batched `BlindEvaluate` with the caller's proof nonce `r` (RFC 9497 vectors'
        /// `Proof.r`): `{ evaluatedElements, proof }`.
        #[wasm_bindgen(js_name = voprfBlindEvaluateBatch, unchecked_return_type = "BatchEvaluation")]
        pub fn voprf_blind_evaluate_batch(
            server: &VoprfServer,
            #[wasm_bindgen(js_name = blindedElements, unchecked_param_type = "Uint8Array[]")]
            blinded_elements: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] r: JsValue,
        ) -> JsResult<JsValue> {
            let r = Zeroizing::new(bytes(&r, "r")?);
            each!(&server.inner, VoprfServers, s, S => {
                let be = blinded::<S>(&blinded_elements)?;
                // Output slots (overwritten): any valid elements of the suite.
                let mut out = be
                    .iter()
                    .map(|b| EvaluationElement::<S>::from_bytes(b.to_bytes().as_slice()))
                    .collect::<Result<Vec<_>, _>>()
                    .or_throw()?;
                let proof = lib::voprf_blind_evaluate_with_nonce(s, &be, &mut out, &r).or_throw()?;
                Ok(batch_evaluation(out.iter().map(|m| m.to_bytes()), proof.to_bytes()))
            })
        }

        /// POPRF batched `BlindEvaluate` with the caller's proof nonce `r`.
        #[wasm_bindgen(js_name = poprfBlindEvaluateBatch, unchecked_return_type = "BatchEvaluation")]
        pub fn poprf_blind_evaluate_batch(
            server: &PoprfServer,
            #[wasm_bindgen(js_name = blindedElements, unchecked_param_type = "Uint8Array[]")]
            blinded_elements: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] r: JsValue,
        ) -> JsResult<JsValue> {
            let r = Zeroizing::new(bytes(&r, "r")?);
            let info = bytes(&info, "info")?;
            each!(&server.inner, PoprfServers, s, S => {
                let be = blinded::<S>(&blinded_elements)?;
                // Output slots (overwritten): any valid elements of the suite.
                let mut out = be
                    .iter()
                    .map(|b| EvaluationElement::<S>::from_bytes(b.to_bytes().as_slice()))
                    .collect::<Result<Vec<_>, _>>()
                    .or_throw()?;
                let proof = lib::poprf_blind_evaluate_with_nonce(s, &be, &info, &mut out, &r).or_throw()?;
                Ok(batch_evaluation(out.iter().map(|m| m.to_bytes()), proof.to_bytes()))
            })
        }
    }
}
