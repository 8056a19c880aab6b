// The parsed profile document as the reader sees it, built from yaml-cpp's parser events by the
// guard (yaml_guard.cpp) so that the text is parsed once. It keeps what YAML::Load would keep
// (kind, scalar text, tag, position, entry order, duplicate keys) and nothing else.
#pragma once

#include <ibsetup/diagnostics.hpp>

#include <deque>
#include <string>
#include <vector>

namespace ibsetup::profile::detail {

enum class YamlKind { null, scalar, sequence, map };

struct YamlNodeData {
  YamlKind kind = YamlKind::null;
  ibsetup::Mark mark;  // 1-based; line 0 when unknown
  std::string scalar;
  std::string tag;  // as yaml-cpp reports it: "?" plain, "!" quoted, "" for null
  // A sequence's items, or a mapping's keys and values alternately. An alias is the anchored
  // node itself, shared: an alias bomb costs one pointer per use, never a copy.
  std::vector<const YamlNodeData*> children;
};

// A handle on one node, cheap to copy, valid while its YamlDocument lives; the default handle
// is null, as YAML::Node's is. The names follow YAML::Node's so the reader reads alike.
class YamlNode {
public:
  YamlNode() = default;
  explicit YamlNode(const YamlNodeData* data) : m_data(data) {}

  YamlKind kind() const { return m_data == nullptr ? YamlKind::null : m_data->kind; }
  bool IsNull() const { return kind() == YamlKind::null; }
  bool IsScalar() const { return kind() == YamlKind::scalar; }
  bool IsSequence() const { return kind() == YamlKind::sequence; }
  bool IsMap() const { return kind() == YamlKind::map; }
  // The text of a scalar; "" for any other kind.
  const std::string& Scalar() const;
  const std::string& Tag() const;
  // 1-based position of the node's first character; line 0 when the handle is null.
  ibsetup::Mark Mark() const { return m_data == nullptr ? ibsetup::Mark{} : m_data->mark; }

  // Items of a sequence or entries of a mapping; 0 for other kinds.
  size_t size() const;
  YamlNode item(size_t i) const { return YamlNode(m_data->children[i]); }
  YamlNode key(size_t i) const { return YamlNode(m_data->children[2 * i]); }
  YamlNode value(size_t i) const { return YamlNode(m_data->children[2 * i + 1]); }

  // Equal for the same node (an alias and its anchor are); nullptr for a null handle.
  const void* id() const { return m_data; }

private:
  const YamlNodeData* m_data = nullptr;
};

// Owns every node of one document. Not copyable: handles point into it.
class YamlDocument {
public:
  YamlDocument() = default;
  YamlDocument(const YamlDocument&) = delete;
  YamlDocument& operator=(const YamlDocument&) = delete;
  YamlDocument(YamlDocument&&) = default;
  YamlDocument& operator=(YamlDocument&&) = default;

  // The first node made, or a null handle for a document without one.
  YamlNode root() const { return YamlNode(m_nodes.empty() ? nullptr : &m_nodes.front()); }
  // A new node; its address stays valid for the document's life.
  YamlNodeData& make(YamlKind kind, ibsetup::Mark mark);

private:
  std::deque<YamlNodeData> m_nodes;
};

// Builds a document from parser events in their order, as yaml-cpp's NodeBuilder does for
// YAML::Load: a node's anchor is known from its start (so an alias inside it is the node
// itself), and an alias adds the anchored node, not a copy. Anchors are yaml-cpp's numbers.
class YamlBuilder {
public:
  explicit YamlBuilder(YamlDocument& doc) : m_doc(doc) {}

  void null(ibsetup::Mark mark, size_t anchor);
  void scalar(ibsetup::Mark mark, size_t anchor, const std::string& tag, const std::string& text);
  // False for an anchor never defined (yaml-cpp's parser refuses those before).
  bool alias(size_t anchor);
  void open(YamlKind kind, ibsetup::Mark mark, size_t anchor, const std::string& tag);
  void close();

private:
  YamlNodeData& add(YamlKind kind, ibsetup::Mark mark, size_t anchor);
  void attach(const YamlNodeData& node);

  YamlDocument& m_doc;
  std::vector<YamlNodeData*> m_open;
  std::vector<const YamlNodeData*> m_anchors;  // by anchor number
};

}  // namespace ibsetup::profile::detail
