#pragma once
namespace outer {
namespace inner {

template <typename T>
class Box : public Base {
public:
    Box();
    ~Box();
    T get() const { return value_; }
    Box& operator=(const Box&);
    static Box* make();
    int (*fp)(int);
private:
    T value_;
    struct Node { int x; };
};

enum class Color { Red };
using Alias = Box<int>;

}  // namespace inner
}  // namespace outer

template <typename T>
T outer::inner::Box<T>::get2() const {
    auto l = [] { struct Hidden {}; };
    return T();
}

Box::~Box() {}

extern "C" {
int c_api(void);
}

namespace {
void anon_helper() {}
}
