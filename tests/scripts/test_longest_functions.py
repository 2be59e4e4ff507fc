"""scripts/longest_functions.py: the lines of each function it finds in sources of known shape."""
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import longest_functions  # noqa: E402

SOURCE = r'''#include <string>
#define OPEN {
// a comment with a brace {
namespace sim {
struct A {
  A(int x) : a_{x}, b_(x) {
    int y = 1;
    auto f = [](int z) { return z; };
  }
  int a_, b_;
  int g() const { return 1; }
};
const int table[] = {1, 2};
/* a block comment } */
std::string h(int x) {
  if (x) {
    return "}";
  }
  const char c = '{';
  return std::string(1, c);
}
}  // namespace sim
'''


class LongestFunctions(unittest.TestCase):
    def found(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
            f.write(text)
        try:
            return sorted((first, lines, name) for lines, first, name in longest_functions.functions(Path(f.name)))
        finally:
            Path(f.name).unlink()

    def test_functions_and_their_lines(self):
        # the constructor (its member's braced initialiser and its lambda inside), the one-line
        # member, and h (braces in strings, characters and comments not counted); no table
        self.assertEqual(self.found(SOURCE), [(6, 4, "A"), (11, 1, "g"), (15, 7, "h")])

    def test_a_longer_function_is_reported_longer(self):
        body = "".join(f"  int v{k} = {k};\n" for k in range(130))
        found = self.found("int big() {\n" + body + "  return 0;\n}\nint small() { return 1; }\n")
        self.assertEqual(found, [(1, 133, "big"), (134, 1, "small")])


if __name__ == "__main__":
    unittest.main()
