package catalog

import (
	"reflect"
	"testing"
)

// TestDefaultIsACopy: each Default is the embedded catalog as Parse reads
// it, and changing everything in one (every string, number and flag that
// can be reached, through every slice, map and pointer) changes no other.
func TestDefaultIsACopy(t *testing.T) {
	t.Parallel()
	want, err := Parse(embeddedCatalog)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(changed, want) {
		t.Fatal("Default differs from Parse of the embedded catalog")
	}
	if n := changeAll(reflect.ValueOf(&changed).Elem()); n < 1000 {
		t.Fatalf("changed %d values: the walk did not reach into the catalog", n)
	}
	other, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(other, want) {
		t.Error("changing one Default changed the next: they share memory")
	}
}

// TestDeepCopyCoversTheCatalog walks the Catalog type: every kind in it is
// one deepCopy copies, so that a field of another kind (an interface, a
// channel, a function) fails here rather than panicking in Default for the
// first catalog that sets it.
func TestDeepCopyCoversTheCatalog(t *testing.T) {
	t.Parallel()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Struct:
			for i := range typ.NumField() {
				f := typ.Field(i)
				if !f.IsExported() {
					t.Errorf("%s.%s is unexported: deepCopy cannot set it", path, f.Name)
				}
				walk(f.Type, path+"."+f.Name)
			}
		case reflect.Slice, reflect.Pointer:
			walk(typ.Elem(), path+"[]")
		case reflect.Map:
			if typ.Key().Kind() != reflect.String {
				t.Errorf("%s: map keyed by %s; deepCopy copies keys by value", path, typ.Key())
			}
			walk(typ.Elem(), path+"[key]")
		default:
			if !copiedByValue(typ.Kind()) {
				t.Errorf("%s is a %s: deepCopy does not copy that kind", path, typ.Kind())
			}
		}
	}
	walk(reflect.TypeFor[Catalog](), "Catalog")
}

// changeAll changes every string, number and flag reachable from v, which
// is settable, and returns how many.
func changeAll(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += changeAll(v.Field(i))
		}
		return n
	case reflect.Slice:
		n := 0
		for i := range v.Len() {
			n += changeAll(v.Index(i))
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return changeAll(v.Elem())
	case reflect.Map:
		n := 0
		for it := v.MapRange(); it.Next(); {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			n += changeAll(e)
			v.SetMapIndex(it.Key(), e)
		}
		return n
	case reflect.String:
		v.SetString(v.String() + " (changed)")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	default:
		return 0
	}
	return 1
}
