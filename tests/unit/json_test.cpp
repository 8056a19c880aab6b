#include <ibsetup/json.hpp>

#include <gtest/gtest.h>

using namespace ibsetup;

namespace {

TEST(Json, NestedContainersAndEscaping)
{
  JsonWriter j;
  j.begin_object();
  j.key("name").value("ib0 \"x\"\n");
  j.key("n").value(4092);
  j.key("speed").value(16.0);
  j.key("rate").value(2.5);
  j.key("none").null();
  j.key("list").begin_array().value(true).value(false).begin_object().end_object().end_array();
  j.end_object();
  EXPECT_EQ(R"({"name":"ib0 \"x\"\n","n":4092,"speed":16.0,"rate":2.5,"none":null,)"
            R"("list":[true,false,{}]})",
            j.str());
}

TEST(Json, ControlCharactersAreEscaped)
{
  EXPECT_EQ("\"a\\u0001b\"", json_quote(std::string("a\x01"
                                                    "b")));
}

}  // namespace
