package luks

import (
	"crypto/pbkdf2"
	"fmt"
)

// checkKDF checks a keyslot KDF's type and costs against the limits.
func checkKDF(k *KDF) error {
	switch k.Type {
	case "pbkdf2":
		if _, err := hashFunc(k.Hash); err != nil {
			return err
		}
		if k.Iterations < 1 || k.Iterations > MaxIterations {
			return fmt.Errorf("%w: pbkdf2 iterations %d (1 to %d)", ErrCorrupt, k.Iterations, MaxIterations)
		}
	case "argon2i", "argon2id":
		if k.Time < 1 || k.Time > MaxArgon2Time {
			return fmt.Errorf("%w: %s time cost %d (1 to %d)", ErrCorrupt, k.Type, k.Time, MaxArgon2Time)
		}
		if k.Memory < 8 || k.Memory > MaxArgon2Memory {
			return fmt.Errorf("%w: %s memory cost %d KiB (8 to %d)", ErrCorrupt, k.Type, k.Memory, MaxArgon2Memory)
		}
		if k.CPUs < 1 || k.CPUs > MaxArgon2CPUs {
			return fmt.Errorf("%w: %s parallel cost %d (1 to %d)", ErrCorrupt, k.Type, k.CPUs, MaxArgon2CPUs)
		}
	default:
		return fmt.Errorf("%w: key derivation function %q (pbkdf2, argon2i and argon2id are supported)", ErrUnsupported, k.Type)
	}
	if len(k.Salt) == 0 || len(k.Salt) > 1024 {
		return fmt.Errorf("%w: %s salt of %d bytes", ErrCorrupt, k.Type, len(k.Salt))
	}
	return nil
}

// deriveKey runs a keyslot's KDF over the passphrase.
func deriveKey(k *KDF, passphrase []byte, keyLen int) ([]byte, error) {
	if err := checkKDF(k); err != nil {
		return nil, err
	}
	switch k.Type {
	case "pbkdf2":
		return pbkdf2Key(k.Hash, passphrase, k.Salt, k.Iterations, keyLen)
	case "argon2i":
		return argon2iKey(passphrase, k.Salt, uint32(k.Time), uint32(k.Memory), uint8(k.CPUs), uint32(keyLen)), nil
	default:
		return argon2idKey(passphrase, k.Salt, uint32(k.Time), uint32(k.Memory), uint8(k.CPUs), uint32(keyLen)), nil
	}
}

func pbkdf2Key(hashName string, password, salt []byte, iter, keyLen int) ([]byte, error) {
	h, err := hashFunc(hashName)
	if err != nil {
		return nil, err
	}
	key, err := pbkdf2.Key(h, string(password), salt, iter, keyLen)
	if err != nil {
		return nil, fmt.Errorf("luks: pbkdf2-%s: %w", hashName, err)
	}
	return key, nil
}
