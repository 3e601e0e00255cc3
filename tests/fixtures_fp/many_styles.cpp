// A C++ file written in many styles at once: clang-format rewrites nearly every line of it.
#include <vector>
#include <string>
#include <memory>
#include "store.h"

namespace app{namespace detail{
int helper(int x){return x*2;}
}

template<typename T> class Box : public Base<T>, private Counted {
public:
  explicit Box(T value):value_(std::move(value)),count_(0){}
  ~Box() override {}
  T get() const {return value_;}
  template<typename F> auto map(F&& f) const -> Box<decltype(f(std::declval<T>()))> { return Box<decltype(f(value_))>(f(value_)); }
  bool operator==(const Box& other) const { return value_==other.value_; }
private:
  T value_; int count_;
};

enum class Color : unsigned char { Red = 1, Green = 0x2, Blue = 0b100, };

struct Point { double x{0.0}, y{0.0}; double norm() const; };

double Point::norm() const { return std::sqrt(x*x+y*y); }

class Store : public Repository
{
  public:
    Store(std::string name, std::size_t capacity);
    void save(const std::string &key, const std::vector<int> &values, bool overwrite = false);
    std::unique_ptr<Store> clone() const;
  private:
    std::string name_;
    std::vector<std::pair<std::string, std::vector<int>>> rows_;
};

Store::Store(std::string name, std::size_t capacity) : name_(std::move(name)) { rows_.reserve(capacity); }

void Store::save(const std::string &key, const std::vector<int> &values, bool overwrite)
{
    for (auto &row : rows_) { if (row.first == key) { if (overwrite) { row.second = values; } return; } }
    rows_.emplace_back(key, values);
    auto sum = [&values](int start) { int s = start; for (int v : values) { s += v; } return s; };
    int total = sum(detail::helper(static_cast<int>(values.size())));
    if (total > 100'000) throw std::runtime_error(R"(too "big")");
}

std::unique_ptr<Store> Store::clone() const
{
    auto copy = std::make_unique<Store>(name_, rows_.size());
    for (const auto& [key, values] : rows_) copy->save(key, values, true);
    return copy;
}

}  // namespace app

int main(int argc, char **argv)
{
    app::Store store("main", 16);
    store.save("k", {1, 2, 3});
    std::vector<app::Point> points = {{1.0, 2.0}, {3.0, 4.0},};
    for (std::size_t i = 0; i < points.size(); ++i) { if (points[i].norm() > 2.5) { return 1; } }
    return argc > 1 ? 0 : static_cast<int>(points.size()) - 2;
}
