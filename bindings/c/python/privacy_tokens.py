"""ctypes declarations of the privacy-tokens C ABI (generated from
include/privacy_tokens.h by tests/gen_ctypes.py: do not edit; `bash bindings/c/test.sh
--update-header` regenerates it).

    import privacy_tokens as pt
    lib = pt.load("libprivacy_tokens.so")   # every function with argtypes and restype
    buf = pt.Buffer()
    assert lib.pt_base64url_encode(b"hi", 2, ctypes.byref(buf)) == pt.PT_OK
    lib.pt_buffer_free(ctypes.byref(buf))

Byte and text inputs take `bytes` (or None for NULL with length 0); handles are
`ctypes.c_void_p`, handle outputs `ctypes.byref(ctypes.c_void_p())`; integers are
converted to each parameter's exact width (a Python int passed to a `uint64_t` is not
truncated or misplaced on 32-bit or Apple arm64 targets, a `bool` is a `c_bool`).
"""

import ctypes

PT_TOKEN_TYPE_1 = 1
PT_TOKEN_TYPE_5 = 5
PT_TOKEN_TYPE_2 = 2
PT_TOKEN_TYPE_DA7A = 55930
PT_TOKEN_TYPE_ARC = 58796
PT_ABI_VERSION = 1
PT_VERSION_MAJOR = 0
PT_VERSION_MINOR = 1
PT_VERSION_PATCH = 0
PT_SUITE_P256_SHA256 = 1
PT_SUITE_P384_SHA384 = 2
PT_SUITE_P521_SHA512 = 3
PT_SUITE_RISTRETTO255_SHA512 = 4
PT_SUITE_DECAF448_SHAKE256 = 5
PT_METHOD_PST_V1_VOPRF = 1
PT_METHOD_PST_V1_PMB = 2
PT_METHOD_EXPERIMENT_V2_VOPRF = 3
PT_METHOD_EXPERIMENT_V2_PMB = 4
PT_OK = 0
PT_INVALID_LENGTH = 1
PT_INVALID_POINT = 2
PT_IDENTITY_ELEMENT = 3
PT_NON_CANONICAL_SCALAR = 4
PT_ZERO_SCALAR = 5
PT_INVALID_PROOF = 6
PT_INVALID_INPUT = 7
PT_INVERSE = 8
PT_DERIVE_KEY_PAIR = 9
PT_BATCH = 10
PT_INPUT_TOO_LONG = 11
PT_UNSUPPORTED_VALUE = 12
PT_HASH_TO_CURVE = 13
PT_LIMIT_EXCEEDED = 14
PT_INVALID_SIGNATURE = 15
PT_MISSING_KEY = 16
PT_INFO_MISMATCH = 17
PT_INVALID_INSTANCE = 18
PT_INVALID_ENCODING = 19
PT_INVALID_KEY = 20
PT_OUT_OF_RANGE = 21
PT_SIGNING_FAILURE = 22
PT_BLINDING = 23
PT_NULL_ARGUMENT = 100
PT_BUFFER_TOO_SMALL = 101
PT_INVALID_ARGUMENT = 102
PT_STATE_CONSUMED = 103
PT_ABSENT = 104
PT_RANDOMNESS_UNAVAILABLE = 105
PT_PANIC = 106
PT_UNKNOWN_ERROR = 199
PT_VERSION_STRING = "0.1.0"


class Buffer(ctypes.Structure):
    """`pt_buffer`: library-owned bytes, freed with `pt_buffer_free`."""
    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("len", ctypes.c_size_t)]


class BufferList(ctypes.Structure):
    """`pt_buffer_list`: library-owned buffers, freed with `pt_buffer_list_free`."""
    _fields_ = [("items", ctypes.POINTER(Buffer)), ("count", ctypes.c_size_t)]


class Slice(ctypes.Structure):
    """`pt_slice`: caller bytes lent for one call."""
    _fields_ = [("data", ctypes.c_char_p), ("len", ctypes.c_size_t)]


# name: (restype, argtypes)
FUNCTIONS = {
    'pt_act_context_free': (None, [ctypes.c_void_p]),
    'pt_act_context_new': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint8, ctypes.c_bool, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_context_width': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8)]),
    'pt_act_key_id': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_act_issuance_state_free': (None, [ctypes.c_void_p]),
    'pt_act_issue_request': (ctypes.c_int32, [ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_issuance_state_finalize': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_issuance_state_consumed': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_bool)]),
    'pt_act_issuance_state_to_bytes': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_act_issuance_state_from_bytes': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_credential_free': (None, [ctypes.c_void_p]),
    'pt_act_credential_balance': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)]),
    'pt_act_credential_consumed': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_bool)]),
    'pt_act_credential_prove_spend': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_credential_to_bytes': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_act_credential_from_bytes': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_spend_state_free': (None, [ctypes.c_void_p]),
    'pt_act_spend_state_finalize': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_spend_state_consumed': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_bool)]),
    'pt_act_spend_state_to_bytes': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_act_spend_state_from_bytes': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_moderator_free': (None, [ctypes.c_void_p]),
    'pt_act_moderator_generate': (ctypes.c_int32, [ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_moderator_derive': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_moderator_from_secret_key': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_moderator_secret_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_act_moderator_public_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_act_moderator_issue': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_act_verified_spend_free': (None, [ctypes.c_void_p]),
    'pt_act_verified_spend_nullifier': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_act_verified_spend_amounts': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]),
    'pt_act_moderator_verify_spend': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_moderator_issue_refund': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(Buffer)]),
    'pt_act_nullifier_store_free': (None, [ctypes.c_void_p]),
    'pt_act_nullifier_store_new': (ctypes.c_int32, [ctypes.POINTER(ctypes.c_void_p)]),
    'pt_act_nullifier_store_len': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]),
    'pt_act_moderator_redeem': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p, ctypes.POINTER(Buffer), ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_bool)]),
    'pt_credential_request_state_free': (None, [ctypes.c_void_p]),
    'pt_create_credential_request': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_credential_request_state_finalize': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_credential_request_state_consumed': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_bool)]),
    'pt_credential_free': (None, [ctypes.c_void_p]),
    'pt_credential_present': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(Buffer)]),
    'pt_credential_remaining': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32)]),
    'pt_credential_to_bytes': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_credential_from_bytes': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_arc_issuer_free': (None, [ctypes.c_void_p]),
    'pt_arc_issuer_generate': (ctypes.c_int32, [ctypes.POINTER(ctypes.c_void_p)]),
    'pt_arc_issuer_from_secret_key': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_arc_issuer_secret_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_arc_issuer_token_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_arc_issuer_token_key_id': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_arc_issuer_issue': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_char_p)]),
    'pt_arc_issuer_verify': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(Buffer)]),
    'pt_create_extended_token_request': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_extensions_encode': (ctypes.c_int32, [ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_extended_token_request_extensions': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_blind_rsa_issuer_free': (None, [ctypes.c_void_p]),
    'pt_blind_rsa_issuer_from_pem': (ctypes.c_int32, [ctypes.c_uint16, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_blind_rsa_issuer_from_pkcs8_der': (ctypes.c_int32, [ctypes.c_uint16, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_blind_rsa_issuer_generate': (ctypes.c_int32, [ctypes.c_uint16, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_blind_rsa_issuer_token_type': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint16)]),
    'pt_blind_rsa_issuer_token_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_blind_rsa_issuer_token_key_id': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_blind_rsa_issuer_private_key_der': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_blind_rsa_issuer_private_key_pem': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_blind_rsa_issuer_issue': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_char_p)]),
    'pt_blind_rsa_verify_token': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_bool), ctypes.POINTER(Buffer)]),
    'pt_blind_rsa_verify_token_any_challenge': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_bool), ctypes.POINTER(Buffer)]),
    'pt_challenge_free': (None, [ctypes.c_void_p]),
    'pt_challenge_from_bytes': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_challenge_create': (ctypes.c_int32, [ctypes.c_uint16, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_challenge_set_token_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]),
    'pt_challenge_set_max_age': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_uint64]),
    'pt_challenge_set_rate_limit': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_uint32]),
    'pt_challenge_token_type': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint16)]),
    'pt_challenge_supported': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_bool)]),
    'pt_challenge_issuer_name': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_redemption_context': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_origin_info': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_credential_context': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_token_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_max_age': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)]),
    'pt_challenge_rate_limit': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)]),
    'pt_challenge_parameter': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_challenge_to_bytes': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_digest': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_to_header': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_challenge_list_free': (None, [ctypes.c_void_p]),
    'pt_parse_challenges': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_challenge_list_count': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]),
    'pt_challenge_list_get': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_challenge_list_find': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_uint16, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_parse_authorization': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_parse_authorization_with_extensions': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(Buffer)]),
    'pt_authorization_header': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_authorization_header_with_extensions': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_base64url_encode': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_base64url_decode': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_issuer_directory_free': (None, [ctypes.c_void_p]),
    'pt_parse_issuer_directory': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_issuer_directory_request_uri': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_issuer_directory_key_count': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]),
    'pt_issuer_directory_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(Buffer)]),
    'pt_issuer_directory_key_not_before': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64)]),
    'pt_issuer_directory_find_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_uint16, ctypes.c_uint64, ctypes.POINTER(Buffer)]),
    'pt_version': (ctypes.c_char_p, []),
    'pt_abi_version': (ctypes.c_uint32, []),
    'pt_status_name': (ctypes.c_char_p, [ctypes.c_int32]),
    'pt_buffer_free': (None, [ctypes.POINTER(Buffer)]),
    'pt_buffer_list_free': (None, [ctypes.POINTER(BufferList)]),
    'pt_buffer_copy': (ctypes.c_int32, [ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
    'pt_suite_name': (ctypes.c_char_p, [ctypes.c_uint32]),
    'pt_oprf_client_new': (ctypes.c_int32, [ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_oprf_client_free': (None, [ctypes.c_void_p]),
    'pt_oprf_client_blind': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_oprf_client_blind_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.POINTER(BufferList), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_oprf_client_state_finalize': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_oprf_client_state_finalize_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.POINTER(BufferList)]),
    'pt_oprf_client_state_free': (None, [ctypes.c_void_p]),
    'pt_voprf_client_new': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_voprf_client_free': (None, [ctypes.c_void_p]),
    'pt_voprf_client_blind': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_voprf_client_blind_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.POINTER(BufferList), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_voprf_client_state_finalize': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_voprf_client_state_finalize_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(BufferList)]),
    'pt_voprf_client_state_free': (None, [ctypes.c_void_p]),
    'pt_poprf_client_new': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_poprf_client_free': (None, [ctypes.c_void_p]),
    'pt_poprf_client_blind': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_poprf_client_blind_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.POINTER(BufferList), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_poprf_client_state_finalize': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_poprf_client_state_finalize_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(BufferList)]),
    'pt_poprf_client_state_free': (None, [ctypes.c_void_p]),
    'pt_oprf_server_generate': (ctypes.c_int32, [ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_oprf_server_from_secret_key': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_oprf_server_derive': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_oprf_server_secret_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_oprf_server_blind_evaluate': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_oprf_server_blind_evaluate_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.POINTER(BufferList)]),
    'pt_oprf_server_evaluate': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_oprf_server_free': (None, [ctypes.c_void_p]),
    'pt_voprf_server_generate': (ctypes.c_int32, [ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_voprf_server_from_secret_key': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_voprf_server_derive': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_voprf_server_secret_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_voprf_server_public_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_voprf_server_blind_evaluate': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(Buffer)]),
    'pt_voprf_server_blind_evaluate_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.POINTER(BufferList), ctypes.POINTER(Buffer)]),
    'pt_voprf_server_evaluate': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_voprf_server_free': (None, [ctypes.c_void_p]),
    'pt_poprf_server_generate': (ctypes.c_int32, [ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_poprf_server_from_secret_key': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_poprf_server_derive': (ctypes.c_int32, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_poprf_server_secret_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_poprf_server_public_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_poprf_server_blind_evaluate': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(Buffer)]),
    'pt_poprf_server_blind_evaluate_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Slice), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(BufferList), ctypes.POINTER(Buffer)]),
    'pt_poprf_server_evaluate': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_poprf_server_free': (None, [ctypes.c_void_p]),
    'pt_token_request_state_free': (None, [ctypes.c_void_p]),
    'pt_create_token_request': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_token_request_state_finalize': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(BufferList)]),
    'pt_token_request_state_info': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(ctypes.c_bool)]),
    'pt_token_free': (None, [ctypes.c_void_p]),
    'pt_token_from_bytes': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_token_type': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint16)]),
    'pt_token_to_bytes': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_token_authorization_header': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_token_authorization_header_with_extensions': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
    'pt_token_challenge_digest': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_token_key_id': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_token_nonce': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_privacy_pass_issuer_free': (None, [ctypes.c_void_p]),
    'pt_privacy_pass_issuer_generate': (ctypes.c_int32, [ctypes.c_uint16, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_privacy_pass_issuer_from_secret_key': (ctypes.c_int32, [ctypes.c_uint16, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_privacy_pass_issuer_derive': (ctypes.c_int32, [ctypes.c_uint16, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_privacy_pass_issuer_info': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(ctypes.c_uint16)]),
    'pt_privacy_pass_issuer_token_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_privacy_pass_issuer_token_key_id': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_privacy_pass_issuer_secret_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_privacy_pass_issuer_set_max_batch': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_uint16]),
    'pt_privacy_pass_issuer_issue': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_char_p)]),
    'pt_privacy_pass_issuer_verify_token': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_bool), ctypes.POINTER(Buffer)]),
    'pt_privacy_pass_issuer_verify_token_any_challenge': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_bool), ctypes.POINTER(Buffer)]),
    'pt_trust_token_generate_key': (ctypes.c_int32, [ctypes.c_uint8, ctypes.c_uint32, ctypes.POINTER(Buffer), ctypes.POINTER(Buffer)]),
    'pt_trust_token_derive_key_from_secret': (ctypes.c_int32, [ctypes.c_uint8, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(Buffer)]),
    'pt_trust_token_issuer_free': (None, [ctypes.c_void_p]),
    'pt_trust_token_issuer_new': (ctypes.c_int32, [ctypes.c_uint8, ctypes.c_uint16, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_trust_token_issuer_add_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]),
    'pt_trust_token_issuer_public_keys': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(BufferList)]),
    'pt_trust_token_issuer_issue': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_uint8, ctypes.c_uint16, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_uint16)]),
    'pt_trust_token_issuer_redeem': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_bool), ctypes.POINTER(Buffer), ctypes.POINTER(Buffer)]),
    'pt_trust_token_client_free': (None, [ctypes.c_void_p]),
    'pt_trust_token_client_new': (ctypes.c_int32, [ctypes.c_uint8, ctypes.c_uint16, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_trust_token_client_add_key': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
    'pt_trust_token_issuance_state_free': (None, [ctypes.c_void_p]),
    'pt_trust_token_client_begin_issuance': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_uint16, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_void_p)]),
    'pt_trust_token_client_finish_issuance': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(BufferList)]),
    'pt_trust_token_issuance_state_to_bytes': (ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(Buffer)]),
    'pt_trust_token_issuance_state_from_bytes': (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    'pt_trust_token_client_begin_redemption': (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Buffer)]),
}


def load(path):
    """The shared library at `path` with every function's argtypes and restype set."""
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in FUNCTIONS.items():
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = argtypes
    return lib
