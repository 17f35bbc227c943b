package luks

import "context"

func (h *Header) reencryption() (Reencryption, bool) { return Reencryption{}, false }

func initReencrypt(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	return nil, errReencryptTODO
}

func resumeReencrypt(ctx context.Context, data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) error {
	return errReencryptTODO
}
