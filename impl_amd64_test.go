//go:build !purego

package xts

import (
	"os"
	"testing"
)

// The engine's switch indexes asmVariants by constant: they must agree.
func TestAsmVariantIndexes(t *testing.T) {
	for _, tc := range []struct {
		index int
		name  string
	}{
		{variantAESNI, nameAESNI},
		{variantAESNIAVX, nameAESNIAVX},
		{variantVAESAVX2, nameVAESAVX2},
		{variantAVX10_256, nameAVX10_256},
		{variantAVX10_512, nameAVX10_512},
	} {
		if got := asmVariants[tc.index].name; got != tc.name {
			t.Errorf("asmVariants[%d] is %q, the engine calls it %q", tc.index, got, tc.name)
		}
	}
	if len(asmVariants) != 5 {
		t.Errorf("%d assembly variants, the engine knows 5", len(asmVariants))
	}
}

// The registry sees exactly the policy's verdicts for this machine, in
// its order, then generic.
func TestRegisteredFollowPolicy(t *testing.T) {
	c, _ := host()
	want := rankVariants(c)
	got := asmImplementations()
	if len(got) != len(want) {
		t.Fatalf("%d implementations registered, policy ranks %d", len(got), len(want))
	}
	for i, v := range want {
		g := got[i]
		if g.name != v.Name || g.available != v.Available || g.note != v.Note || g.newAES == nil {
			t.Errorf("registered #%d = {%s %v %q newAES=%v}, policy says %+v", i, g.name, g.available, g.note, g.newAES != nil, v)
		}
	}

	list := Implementations()
	if len(list) != len(want)+1 || list[len(list)-1].Name != genericName {
		t.Fatalf("Implementations() = %+v, want the five variants then generic", list)
	}
	if os.Getenv(envImplementation) != "" {
		return // the default is the user's choice
	}
	wantDefault := genericName
	for _, v := range want {
		if v.Default {
			wantDefault = v.Name
		}
	}
	for _, im := range list {
		if im.Default != (im.Name == wantDefault) {
			t.Errorf("%s: Default = %v, policy's default is %s", im.Name, im.Default, wantDefault)
		}
		t.Logf("%-15s available=%-5v default=%-5v %s", im.Name, im.Available, im.Default, im.Note)
	}
}

// An assembly call allocates nothing: the tweak must not escape.
func TestAsmEngineNoAlloc(t *testing.T) {
	key := make([]byte, 64)
	for i := range key {
		key[i] = byte(i)
	}
	buf := make([]byte, 4096+5)
	for _, im := range asmImplementations() {
		t.Run(im.name, func(t *testing.T) {
			if !im.available {
				t.Skipf("%s unavailable here: %s", im.name, im.note)
			}
			e := im.newAES(key)
			var tw tweak128
			allocs := testing.AllocsPerRun(100, func() {
				tw = e.encrypt(buf, buf, tw, flagEncryptTweak|flagStoreTweak)
				tw = e.decrypt(buf, buf, tw, flagStoreTweak)
			})
			if allocs != 0 {
				t.Errorf("%v allocations per encrypt+decrypt", allocs)
			}
		})
	}
}
