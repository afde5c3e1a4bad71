//! Privacy Pass binding of ARC (draft-ietf-privacypass-arc-protocol-01, token type 0xE5AC).
