package fvault2

import (
	"path/filepath"
	"testing"

	"github.com/fastxts/xts/internal/fdeimages"
)

// The test image is cryptsetup's own FileVault 2 test volume, kept out of
// the repository in ../shared/fde-images (relative to the module root);
// tests unpack it into a temporary directory of each test (fdeimages.Unpack).

// Its values, from /work/shared/fde-images/README.md.
const (
	smallPassword   = "heslo123"
	smallPVUUID     = "fc52bfae-5a1f-4f9b-b3a6-f33303a0e401"
	smallFamilyUUID = "33a76caa-1481-4bc5-8d04-1ac1707c19c0"
	smallLVOffset   = 67108864
	smallLVSize     = 167772160
	smallIterations = 204222
	smallSalt       = "2c249edb6663d6fbcc7905b7a4d72752"
	smallVolumeKey  = "20734d3389212774d7610c29d732880916f3be14c4b12ac7aaf07e5ccc77b319"
	smallSHA256     = "2c662e36c0f7e2f5583e6a939bbcbdc660805692d0fccaa45ad4052beb3b8e18"
)

// smallImage unpacks the archive into t.TempDir() (it is a sparse tar:
// instant, and the 512 MiB image takes some 60 KiB of disk) and returns
// the path of the image "small", skipping the test when the archive or
// tar is absent.
func smallImage(t testing.TB) string {
	t.Helper()
	dir := fdeimages.Unpack(t, "fvault2-images.tar.xz")
	return filepath.Join(dir, "fvault2-images", "small")
}
